import type { FormEvent, ReactNode } from 'react';
import { Dialog, Notice } from './kit';

/**
 * A dialog holding one form: the action's error on top, the fields, then Cancel and the submit button (disabled
 * while busy). `onSubmit` gets the event already prevented.
 */
export function FormDialog(props: {
  title: string;
  open: boolean;
  onClose: () => void;
  onSubmit: () => unknown;
  submitLabel: string;
  busy: boolean;
  error: string | null;
  children: ReactNode;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void props.onSubmit();
  };
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      <form className="stack" onSubmit={submit}>
        {props.error && <Notice kind="error">{props.error}</Notice>}
        {props.children}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={props.busy}>
            {props.submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A dialog that only shows something (a loaded answer, a choice that acts at once), closed by its Close button. */
export function InfoDialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      {children}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
