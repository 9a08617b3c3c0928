import { useEffect, useState } from 'react';
import { api, unwrap, type ApiError } from '../api/client';
import type { paths } from '../api/schema';
import { Empty, ErrorState, Loading } from '../ui/kit';
import { formatDateTime } from '../ui/dates';

type Webhook = paths['/api/v2/webhooks']['get']['responses'][200]['content']['application/json'][number];
type Page = paths['/api/v2/webhooks/{webhookId}/deliveries']['get']['responses'][200]['content']['application/json'];
type Status = 'pending' | 'delivered' | 'failed';

const PAGE_SIZE = 25;

/** One endpoint's deliveries, newest first, by status, a page at a time ("Load more" follows next_cursor). */
export function WebhookDeliveries({ webhook }: { webhook: Webhook }) {
  const [status, setStatus] = useState<Status | ''>('');
  const [items, setItems] = useState<Page['items'] | null>(null);
  const [cursor, setCursor] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [generation, setGeneration] = useState(0);

  const load = async (before: number | null, previous: Page['items']) => {
    setBusy(true);
    setError(null);
    try {
      const page = await unwrap(
        api.GET('/api/v2/webhooks/{webhookId}/deliveries', {
          params: {
            path: { webhookId: webhook.id },
            query: { limit: PAGE_SIZE, ...(status ? { status } : {}), ...(before !== null ? { before } : {}) },
          },
        }),
      );
      setItems([...previous, ...page.items]);
      setCursor(page.pagination.has_more ? page.pagination.next_cursor : null);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    setItems(null);
    void load(null, []);
    // Reloads from the first page on a new filter or "Refresh" only.
  }, [status, generation]);

  return (
    <section className="card stack" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries to {webhook.url}</h2>
      <div className="row">
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
            <option value="">All</option>
            <option value="pending">Pending</option>
            <option value="delivered">Delivered</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <button type="button" className="button" disabled={busy} onClick={() => setGeneration(generation + 1)}>
          Refresh
        </button>
      </div>
      {error ? (
        <ErrorState error={error} retry={() => setGeneration(generation + 1)} />
      ) : !items ? (
        <Loading />
      ) : items.length === 0 ? (
        <Empty title="No deliveries">
          <p>Events this endpoint asks for show here once they happen. Delivered events are kept for 7 days.</p>
        </Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Deliveries, newest first">
          <table>
            <caption className="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col" className="hide-narrow">
                  Last answer
                </th>
                <th scope="col" className="hide-narrow">
                  Times
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.id}>
                  <td>
                    {d.type}
                    <div className="muted small mono hide-narrow">{d.event_id}</div>
                  </td>
                  <td>
                    <span className={`badge${d.status === 'delivered' ? ' good' : d.status === 'failed' ? ' bad' : ''}`}>{d.status}</span>
                  </td>
                  <td className="num">{d.attempts}</td>
                  <td className="hide-narrow small">
                    {d.last_status !== null && <div>HTTP {d.last_status}</div>}
                    {d.last_response && <div className="muted">{d.last_response.slice(0, 200)}</div>}
                    {d.last_error && <div className="muted">{d.last_error}</div>}
                    {d.last_status === null && !d.last_error && '—'}
                  </td>
                  <td className="hide-narrow small">
                    <div>Created {formatDateTime(d.created_at)}</div>
                    {d.last_attempt_at && <div>Last attempt {formatDateTime(d.last_attempt_at)}</div>}
                    {d.delivered_at && <div>Delivered {formatDateTime(d.delivered_at)}</div>}
                    {d.next_attempt_at && d.status === 'pending' && <div>Next attempt {formatDateTime(d.next_attempt_at)}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {items && cursor !== null && !error && (
        <div className="row">
          <button type="button" className="button" disabled={busy} onClick={() => void load(cursor, items)}>
            Load more
          </button>
        </div>
      )}
    </section>
  );
}
