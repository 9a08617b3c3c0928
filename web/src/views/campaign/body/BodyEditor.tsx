import { lazy, Suspense, useDeferredValue, useState, type ReactNode, type Ref } from 'react';
import { ConfirmDialog, Loading, Notice } from '../../../ui/kit';
import { withPreviewPolicy } from '../../previewPolicy';
import { convert, FORMATS, isLossless, lossOf, type BodyValue, type EditorFormat } from './formats';
import type { CodeEditorHandle } from '../../../ui/CodeEditor';
import type { BodyEditorHandle } from './handle';
import type { PickImage } from './VisualEditor';
import './body.css';

// Each editor, and the library under it, is a chunk of its own, fetched when its format is first opened.
const CodeEditor = lazy(() => import('../../../ui/CodeEditor'));
const VisualEditor = lazy(() => import('./VisualEditor'));
const RichTextEditor = lazy(() => import('./RichTextEditor'));
const MarkdownEditor = lazy(() => import('./MarkdownEditor'));

const UNSUBSCRIBE = /\[\s*(?:UNSUBSCRIBE|UNSUBSCRIBEURL|BLACKLIST|BLACKLISTURL)\s*(?:%%[^[\]\r\n]*)?\]/i;

interface Props {
  value: BodyValue;
  onChange: (value: BodyValue) => void;
  readOnly: boolean;
  /** The footer, which may hold the unsubscribe link instead of the body. */
  footer: string;
  hasTemplate: boolean;
  /** Why the campaign opened in another format than it was written in (another program changed it). */
  note?: string | null;
  pickImage?: PickImage;
  /** The placeholder panel, under the editor. */
  placeholders?: ReactNode;
  ref?: Ref<BodyEditorHandle>;
}

/**
 * The body: the format bar, the open format's editor and, beside it on wide screens (or instead of it, toggled, on
 * phones), a live preview of what the body sends. Switching format converts at once where nothing is lost, and asks
 * first where something would be.
 */
export function BodyEditor({ value, onChange, readOnly, footer, hasTemplate, note, pickImage, placeholders, ref }: Props) {
  const [asking, setAsking] = useState<EditorFormat | null>(null);
  const [converting, setConverting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Bumped on each conversion, so the editors that read their content once start afresh. */
  const [generation, setGeneration] = useState(0);
  const [pane, setPane] = useState<'write' | 'preview'>('write');
  const [phoneWidth, setPhoneWidth] = useState(false);
  const preview = useDeferredValue(value);

  const switchTo = async (to: EditorFormat) => {
    setError(null);
    setConverting(true);
    try {
      onChange(await convert(value, to));
      setGeneration((g) => g + 1);
    } catch (err) {
      setError(`Could not convert: ${(err as Error).message}`);
    } finally {
      setConverting(false);
    }
  };
  const choose = (to: EditorFormat) => {
    if (to === value.format) return;
    if (isLossless(value, to)) void switchTo(to);
    else setAsking(to);
  };

  const key = `${value.format}-${generation}`;
  const setHtml = (body: string) => onChange({ ...value, body });
  const setSource = (source: string, body: string) => onChange({ ...value, source, body });
  const missingUnsubscribe = !UNSUBSCRIBE.test(value.body) && !UNSUBSCRIBE.test(footer);
  const current = FORMATS.find((f) => f.id === value.format)!;
  // The code editor's handle does more than a body editor's (insert, goToLine): it fills the same ref.
  const codeRef = ref as Ref<CodeEditorHandle> | undefined;

  return (
    <section className="card stack body-editor" aria-labelledby="body-title">
      <div className="section-title">
        <h2 id="body-title">Body</h2>
        <div className="segmented body-pane-toggle" role="group" aria-label="Show">
          <button type="button" className="button" aria-pressed={pane === 'write'} onClick={() => setPane('write')}>
            Write
          </button>
          <button type="button" className="button" aria-pressed={pane === 'preview'} onClick={() => setPane('preview')}>
            Preview
          </button>
        </div>
      </div>
      <div className="format-bar" role="group" aria-label="Format">
        {FORMATS.map((f) => (
          <button
            key={f.id}
            type="button"
            className="button"
            aria-pressed={value.format === f.id}
            title={f.hint}
            disabled={readOnly || converting}
            onClick={() => choose(f.id)}
          >
            {f.label}
          </button>
        ))}
        <span className="muted small">{current.hint}</span>
      </div>
      {note && <Notice>{note}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {missingUnsubscribe && (
        <p className="muted small" data-testid="unsubscribe-hint">
          ⚠ No unsubscribe link in the body or the footer yet{hasTemplate ? ' (the template may have one)' : ''}: insert [UNSUBSCRIBE] from the
          placeholders.
        </p>
      )}
      <div className={`body-panes show-${pane}`}>
        <div className="body-write">
          <Suspense fallback={<Loading label="Loading the editor…" />}>
            {value.format === 'visual' ? (
              <VisualEditor key={key} ref={ref} source={value.source} readOnly={readOnly} pickImage={pickImage} onChange={setSource} />
            ) : value.format === 'richtext' ? (
              <RichTextEditor key={key} ref={ref} html={value.body} readOnly={readOnly} onChange={setHtml} />
            ) : value.format === 'markdown' ? (
              <MarkdownEditor key={key} ref={codeRef} source={value.source} readOnly={readOnly} onChange={setSource} />
            ) : (
              <CodeEditor
                key={key}
                ref={codeRef}
                label={value.format === 'text' ? 'Body (plain text)' : 'Body (HTML)'}
                language={value.format === 'text' ? 'text' : 'html'}
                minHeight="24rem"
                value={value.body}
                readOnly={readOnly}
                onChange={setHtml}
              />
            )}
          </Suspense>
          {placeholders && (
            <details className="placeholder-details" open>
              <summary>Placeholders (the subscriber’s name, links…)</summary>
              {placeholders}
            </details>
          )}
        </div>
        <div className="body-preview" data-testid="live-preview">
          <div className="section-title">
            <h3>Live preview</h3>
            {preview.format !== 'text' && (
              <label className="inline small">
                <input type="checkbox" checked={phoneWidth} onChange={(e) => setPhoneWidth(e.target.checked)} /> Phone width
              </label>
            )}
          </div>
          {preview.format === 'text' ? (
            <pre className="live-text" tabIndex={0} aria-label="Text preview">
              {preview.body}
            </pre>
          ) : (
            <iframe
              title="Live preview of the body"
              sandbox=""
              className={`live-frame${phoneWidth ? ' phone' : ''}`}
              srcDoc={withPreviewPolicy(
                `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0${preview.format === 'visual' ? '' : ';padding:12px'}">${preview.body}</body></html>`,
              )}
            />
          )}
          <p className="muted small">
            The body alone, placeholders as written; remote images are not loaded here. The preview below shows the whole mail.
          </p>
        </div>
      </div>
      <ConfirmDialog
        title={asking ? `Convert to ${FORMATS.find((f) => f.id === asking)!.label}?` : 'Convert'}
        open={asking !== null}
        onClose={() => setAsking(null)}
        confirmLabel="Convert"
        confirm={async () => {
          if (asking) await switchTo(asking);
        }}
      >
        <p>{asking && lossOf(value.format, asking)}</p>
        <p>You can undo it by not saving: leave the campaign, or reload it.</p>
      </ConfirmDialog>
    </section>
  );
}
