import { useRef, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useApi } from '../../api/useApi';
import { Loaded } from '../../ui/data';

/** Copies `text`; where the browser refuses (no clipboard access, an insecure page), selects it and says how to copy. */
function CopyButton({ text, what, select }: { text: string; what: string; select: () => void }) {
  const [said, setSaid] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid(`${what} copied.`);
    } catch {
      select();
      setSaid(`This browser did not let the console copy: the ${what.toLowerCase()} is selected, press Ctrl+C (⌘C on a Mac).`);
    }
  };
  return (
    <div className="row copy-row">
      <button type="button" className="button" onClick={() => void copy()}>
        Copy<span className="visually-hidden"> the {what.toLowerCase()}</span>
      </button>
      <span className="muted small" role="status" aria-live="polite">
        {said}
      </span>
    </div>
  );
}

/** The hosted form's address and the HTML to paste into another site (`…/embed`), each with a Copy button. */
export function EmbedPanel({ pageId, version, active }: { pageId: number; version: number; active: boolean }) {
  const embed = useApi(() => unwrap(api.GET('/api/v2/subscribe-pages/{pageId}/embed', { params: { path: { pageId } } })), [pageId, version]);
  const urlRef = useRef<HTMLInputElement>(null);
  const codeRef = useRef<HTMLTextAreaElement>(null);
  return (
    <section className="card stack" aria-labelledby="form-embed-title">
      <h2 id="form-embed-title">Share and embed</h2>
      {!active && <p className="muted small">The form is not active: both answer “not found” until it is.</p>}
      <Loaded state={embed}>
        {(answer) => (
          <>
            <label>
              Hosted form
              <input ref={urlRef} readOnly value={answer.url} className="mono" onFocus={(e) => e.target.select()} />
            </label>
            <CopyButton text={answer.url} what="Address" select={() => urlRef.current?.select()} />
            {active && (
              <a href={answer.url} target="_blank" rel="noreferrer">
                Open the hosted form
              </a>
            )}
            <label>
              Embed code <span className="muted small">(a plain HTML form, no script; your site&apos;s styles apply)</span>
              <textarea ref={codeRef} readOnly className="mono embed-code" rows={8} spellCheck={false} value={answer.html} />
            </label>
            <CopyButton text={answer.html} what="Embed code" select={() => codeRef.current?.select()} />
          </>
        )}
      </Loaded>
    </section>
  );
}
