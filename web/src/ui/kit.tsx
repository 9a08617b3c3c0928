import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { ApiError } from '../api/client';
import { Link } from '../router';

export function PageHeader({ title, children, back }: { title: string; children?: ReactNode; back?: { to: string; label: string } }) {
  useEffect(() => {
    document.title = `${title} · Mailroom`;
  }, [title]);
  return (
    <header className="page-header">
      <div>
        {back && (
          <Link className="back" to={back.to}>
            ← {back.label}
          </Link>
        )}
        <h1>{title}</h1>
      </div>
      {children && <div className="actions">{children}</div>}
    </header>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

/** An error answer as a message: a 403 reads "You are not allowed to …", never a broken page. */
export function ErrorState({ error, retry }: { error: ApiError; retry?: () => void }) {
  const forbidden = error.status === 403;
  const text = forbidden && !/^You are not allowed to/i.test(error.message) ? `You are not allowed to do this: ${error.message}` : error.message;
  return (
    <div className={`state ${forbidden ? 'forbidden' : 'error'}`} role="alert">
      <p className="state-title">{forbidden ? 'Not allowed' : 'Something went wrong'}</p>
      <p>{text}</p>
      {retry && !forbidden && (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice({ kind = 'info', children }: { kind?: 'info' | 'error' | 'success'; children: ReactNode }) {
  return (
    <div className={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** A modal dialog (the native <dialog>, which keeps focus inside and closes on Escape). */
export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}

/** Asks before something that cannot be undone; `confirm` runs the action and may fail with a message. */
export function ConfirmDialog(props: {
  title: string;
  open: boolean;
  onClose: () => void;
  confirmLabel: string;
  children: ReactNode;
  confirm: () => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.confirm();
      props.onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      <div className="dialog-body">{props.children}</div>
      {error && <Notice kind="error">{error}</Notice>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" className="button danger" disabled={busy} onClick={() => void run()}>
          {props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

/** Cursor paging that stays in the address: the first page, and the next one after the last id shown. */
export function Pager({
  total,
  shown,
  nextHref,
  firstHref,
  atStart,
}: {
  total: number;
  shown: number;
  nextHref: string | null;
  firstHref: string;
  atStart: boolean;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <span>
        {shown} shown of {total.toLocaleString('en')}
      </span>
      <span className="pager-links">
        {!atStart && <Link to={firstHref}>First page</Link>}
        {nextHref && <Link to={nextHref}>Next page →</Link>}
      </span>
    </nav>
  );
}

/** A count as the console shows it: grouped by thousands (12,345). */
export function formatCount(value: number): string {
  return value.toLocaleString('en');
}

/** `part` as a percentage of `whole` to one decimal (12.3%), or — when there is no whole to be a part of. */
export function formatRate(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '—';
}

/** Runs a form action with a busy flag and the API's message on failure. */
export function useAction(): {
  busy: boolean;
  error: string | null;
  /** The 422's messages by field, so a form can show each beside its field. */
  fields: Record<string, string[]>;
  run: (action: () => Promise<void>) => Promise<boolean>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string[]>>({});
  return {
    busy,
    error,
    fields,
    clear: () => {
      setError(null);
      setFields({});
    },
    run: async (action) => {
      setBusy(true);
      setError(null);
      setFields({});
      try {
        await action();
        return true;
      } catch (err) {
        setError((err as Error).message);
        setFields((err as Partial<ApiError>).fields ?? {});
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** A subscriber's standing, as every table and page shows it: blacklisted outranks confirmed. */
export function SubscriberStatus({ confirmed, blacklisted }: { confirmed: boolean; blacklisted: boolean }) {
  if (blacklisted) return <span className="badge bad">Blacklisted</span>;
  return confirmed ? <span className="badge good">Confirmed</span> : <span className="badge">Unconfirmed</span>;
}
