import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { Notice } from '../../ui/kit';

interface Result {
  email: string;
  ok: boolean;
  message: string;
}

const MAX = 50;

/**
 * Test send: one POST …/test-send per address, so each address gets its own result (the API answers the batch as a
 * whole, stopping at the first unknown or refused address).
 */
export function TestSendPanel({ campaignId, dirty }: { campaignId: number; dirty: boolean }) {
  const [text, setText] = useState('');
  const [results, setResults] = useState<Result[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const emails = [
      ...new Set(
        text
          .split(/[\s,;]+/)
          .map((e) => e.trim())
          .filter(Boolean),
      ),
    ];
    if (emails.length === 0) return;
    if (emails.length > MAX) {
      setError(`At most ${MAX} addresses at a time.`);
      return;
    }
    setError(null);
    setBusy(true);
    const done: Result[] = [];
    setResults([]);
    for (const email of emails) {
      try {
        await unwrap(api.POST('/api/v2/campaigns/{messageId}/test-send', { params: { path: { messageId: campaignId } }, body: { emails: [email] } }));
        done.push({ email, ok: true, message: 'Sent' });
      } catch (err) {
        done.push({ email, ok: false, message: (err as Error).message });
      }
      setResults([...done]);
    }
    setBusy(false);
  };

  return (
    <section className="card stack" aria-labelledby="test-send-title" data-testid="test-send">
      <h2 id="test-send-title">Send a test</h2>
      <p className="muted">The test goes to existing subscribers, with “(test)” before the subject. Nothing is counted.</p>
      {dirty && <Notice>You have unsaved changes: the test is sent as last saved.</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <label>
          Addresses (one per line, or separated by commas)
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} required />
        </label>
        <div>
          <button type="submit" className="button" disabled={busy}>
            {busy ? 'Sending…' : 'Send test'}
          </button>
        </div>
      </form>
      {results && results.length > 0 && (
        <ul className="plain test-results" aria-live="polite">
          {results.map((r) => (
            <li key={r.email}>
              <span className={`badge ${r.ok ? 'good' : 'bad'}`}>{r.ok ? 'Sent' : 'Not sent'}</span> {r.email}
              {!r.ok && <span className="muted"> — {r.message}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
