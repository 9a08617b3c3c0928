import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { ErrorState, Loading, formatCount as n, formatRate as rate } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import { usePoll } from '../ui/poll';

/** While the service is computing a newer snapshot, it is asked again this often. */
const UPDATING_MS = 2_000;
const DOMAINS = 10;

/**
 * The campaign's recipients by domain (GET …/domains): a snapshot the service refreshes in the background, so the
 * box says when it was computed and, while a newer one is on its way, asks again every 2 s until it arrives.
 * Rates are of the domain's sent mail; on a phone the sent, clicked and bounced columns give way to one line.
 */
export default function CampaignDomains({ id }: { id: number }) {
  const domains = useApi(
    () => unwrap(api.GET('/api/v2/campaigns/{messageId}/domains', { params: { path: { messageId: id }, query: { limit: DOMAINS } } })),
    [id],
  );
  const updating = domains.data?.stale === true;
  usePoll(async () => domains.reload(), UPDATING_MS, updating, true);

  if (domains.status === 'error' && !domains.data) return <ErrorState error={domains.error} retry={domains.reload} />;
  if (!domains.data) return <Loading label="Reading domains…" />;
  const { computed_at: computedAt, items } = domains.data;
  return (
    <>
      <p className="muted" aria-live="polite" data-testid="domains-as-of">
        {computedAt ? `As of ${formatDateTime(computedAt)}` : 'Not counted yet'}
        {updating ? ' · updating…' : ''}
      </p>
      {computedAt && items.length === 0 ? (
        <p className="muted">The campaign has no recipients.</p>
      ) : items.length > 0 ? (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Recipient domains">
          <table>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col" className="num">
                  Recipients
                </th>
                <th scope="col" className="num hide-narrow">
                  Sent
                </th>
                <th scope="col" className="num">
                  Opened
                </th>
                <th scope="col" className="num hide-narrow">
                  Clicked
                </th>
                <th scope="col" className="num hide-narrow">
                  Bounced
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.domain}>
                  <td
                    className="break"
                    data-narrow={`${n(d.sent)} sent, ${n(d.clicked)} clicked (${rate(d.clicked, d.sent)}), ${n(d.bounced)} bounced (${rate(d.bounced, d.sent)})`}
                  >
                    {d.domain || <span className="muted">(no domain)</span>}
                  </td>
                  <td className="num">{n(d.recipients)}</td>
                  <td className="num hide-narrow">
                    {n(d.sent)}
                    {d.failed > 0 && <div className="muted">{n(d.failed)} failed</div>}
                  </td>
                  <td className="num nowrap">
                    {n(d.opened)} <span className="muted">{rate(d.opened, d.sent)}</span>
                  </td>
                  <td className="num nowrap hide-narrow">
                    {n(d.clicked)} <span className="muted">{rate(d.clicked, d.sent)}</span>
                  </td>
                  <td className="num nowrap hide-narrow">
                    {n(d.bounced)} <span className="muted">{rate(d.bounced, d.sent)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
