import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useApi } from '../../api/useApi';
import { Loaded } from '../../ui/data';
import { withPreviewPolicy } from '../previewPolicy';

/*
 * The form as visitors will see it, from the API's preview (the hosted page rendered for this page, active or not).
 * Why not a frame of the hosted page itself: public pages refuse to be framed (`frame-ancestors 'none'`, against
 * clickjacking a one-button form) and an inactive page is a 404, while a form is mostly edited before it goes live.
 * Why not the embed snippet: it has no stylesheet, so the look being edited would not show. The preview's HTML goes
 * into a `sandbox=""` frame (no script, no form posts, an opaque origin) through srcdoc, under the console's preview
 * policy (../previewPolicy) widened only to the logo's origin, which the API names: the page needs nothing else.
 */
export function PreviewPanel({ pageId, version }: { pageId: number; version: number }) {
  const [phone, setPhone] = useState(false);
  const preview = useApi(() => unwrap(api.GET('/api/v2/subscribe-pages/{pageId}/preview', { params: { path: { pageId } } })), [pageId, version]);
  return (
    <section className="card stack" aria-labelledby="form-preview-title">
      <div className="section-title">
        <h2 id="form-preview-title">Preview</h2>
        <div className="segmented" role="group" aria-label="Preview width">
          {[false, true].map((narrow) => (
            <button key={String(narrow)} type="button" className="button" aria-pressed={phone === narrow} onClick={() => setPhone(narrow)}>
              {narrow ? 'Phone' : 'Desktop'}
            </button>
          ))}
        </div>
      </div>
      <p className="muted small">As saved, and as visitors will see it once the form is active. Sending it is not possible here.</p>
      <Loaded state={preview}>
        {(answer) => (
          <iframe
            className={`signup-preview ${phone ? 'phone' : ''}`}
            title="Preview of the sign-up form"
            sandbox=""
            srcDoc={withPreviewPolicy(answer.html, answer.image_origins)}
          />
        )}
      </Loaded>
    </section>
  );
}
