import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import type { CampaignPreview } from '../../api/types';
import { can, useAuth } from '../../auth';
import { Notice, useAction } from '../../ui/kit';
import { withPreviewPolicy } from '../previewPolicy';

type Width = 'desktop' | 'phone';

/**
 * The campaign as one subscriber gets it, rendered by the API with the sender's composer. The HTML goes into an
 * iframe with `sandbox=""` (no scripts, no forms, an opaque origin: nothing it loads carries the console's
 * credentials, which live in a header anyway) through `srcdoc`, under the preview policy (../previewPolicy); the text part is shown beside
 * it.
 */

export function PreviewPanel({ campaignId, version }: { campaignId: number; version: number }) {
  const { admin } = useAuth();
  const maySearch = can(admin, 'subscribers');
  const [email, setEmail] = useState('');
  const [matches, setMatches] = useState<{ id: number; email: string }[] | null>(null);
  const [preview, setPreview] = useState<(CampaignPreview & { version: number }) | null>(null);
  const [width, setWidth] = useState<Width>('desktop');
  const action = useAction();

  const show = async (who: { email: string } | { subscriber_id: number } | { sample: true }) =>
    action.run(async () => {
      const answer = await unwrap(api.POST('/api/v2/campaigns/{messageId}/preview', { params: { path: { messageId: campaignId } }, body: who }));
      setPreview({ ...answer, version });
      setMatches(null);
      if (answer.subscriber) setEmail(answer.subscriber.email);
    });

  const find = async (event: FormEvent) => {
    event.preventDefault();
    const value = email.trim();
    if (!value) return;
    // A whole address: preview for it at once. Part of one: find the subscribers it matches.
    if (value.includes('@')) return void show({ email: value });
    await action.run(async () => {
      const page = await unwrap(api.GET('/api/v2/subscribers', { params: { query: { find_column: 'email', find_value: value, limit: 8 } } }));
      setMatches(page.items.map((s) => ({ id: s.id, email: s.email })));
    });
  };

  return (
    <section className="card stack" aria-labelledby="preview-title" data-testid="preview">
      <h2 id="preview-title">Preview</h2>
      {/* A real subscriber's preview shows their data and working links: the API asks for `subscribers` too. */}
      {maySearch && (
        <form className="row" role="search" onSubmit={(e) => void find(e)}>
          <label>
            Preview for subscriber (e-mail or part of it)
            <input type="search" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" required />
          </label>
          <button type="submit" className="button" disabled={action.busy}>
            Find / preview
          </button>
        </form>
      )}
      <div className="row">
        <button type="button" className="button" disabled={action.busy} onClick={() => void show({ sample: true })}>
          Preview with sample values
        </button>
        {!maySearch && <p className="muted small">Previewing for a real subscriber needs the subscribers privilege.</p>}
      </div>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {matches && (
        <div>
          {matches.length === 0 ? (
            <p className="muted">No subscriber matches “{email}”.</p>
          ) : (
            <ul className="plain" aria-label="Matching subscribers">
              {matches.map((m) => (
                <li key={m.id}>
                  <button type="button" className="link-button" onClick={() => void show({ subscriber_id: m.id })}>
                    {m.email}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {preview && (
        <>
          {preview.version !== version && <Notice>The campaign was saved since this preview; preview again to see the changes.</Notice>}
          <dl className="facts">
            <dt>To</dt>
            <dd>{preview.subscriber ? preview.subscriber.email : 'A sample subscriber (sample values, links that do not work)'}</dd>
            <dt>From</dt>
            <dd>{preview.from}</dd>
            {preview.reply_to && (
              <>
                <dt>Reply to</dt>
                <dd>{preview.reply_to}</dd>
              </>
            )}
            <dt>Subject</dt>
            <dd data-testid="preview-subject">{preview.subject}</dd>
          </dl>
          <div className="segmented" role="group" aria-label="Preview width">
            {(['desktop', 'phone'] as const).map((w) => (
              <button key={w} type="button" className="button" aria-pressed={width === w} onClick={() => setWidth(w)}>
                {w === 'desktop' ? 'Desktop' : 'Phone'}
              </button>
            ))}
          </div>
          <div className="preview-parts">
            {preview.html !== null ? (
              <div className="preview-html">
                <h3>HTML</h3>
                <iframe
                  title={`HTML preview for ${preview.subscriber ? preview.subscriber.email : 'a sample subscriber'}`}
                  sandbox=""
                  srcDoc={withPreviewPolicy(preview.html)}
                  className={`preview-frame ${width}`}
                />
                <p className="muted small">Remote images are not loaded here; links are shown as written, not tracked.</p>
              </div>
            ) : (
              <Notice>This subscriber takes text-only mail, so they get the text part alone.</Notice>
            )}
            <div className="preview-text">
              <h3>Text part</h3>
              <pre data-testid="preview-text" tabIndex={0}>
                {preview.text}
              </pre>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
