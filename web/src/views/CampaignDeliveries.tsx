import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation, withQuery } from '../router';
import { Empty, ErrorState, Loading, PageHeader, Pager, formatDate } from '../ui/kit';

const PAGE = 50;
const STATUSES = ['queued', 'sending', 'sent', 'failed', 'skipped'] as const;
type Status = (typeof STATUSES)[number];
const TONE: Partial<Record<Status, string>> = { sent: 'good', failed: 'bad' };

/**
 * A campaign's delivery records, one row per recipient: status, attempts and the mail server's last answer. The
 * status filter and the cursor stay in the address (`status`, `after`), so a page can be shared and reloaded.
 */
export default function CampaignDeliveries({ id }: { id: number }) {
  const loc = useLocation();
  const wanted = loc.query.get('status');
  const status = STATUSES.find((s) => s === wanted);
  const after = Number(loc.query.get('after')) || 0;
  const campaign = useApi(() => unwrap(api.GET('/api/v2/campaigns/{messageId}', { params: { path: { messageId: id } } })), [id]);
  const page = useApi(
    () =>
      unwrap(
        api.GET('/api/v2/campaigns/{messageId}/deliveries', {
          params: { path: { messageId: id }, query: { after_id: after, limit: PAGE, ...(status ? { status } : {}) } },
        }),
      ),
    [id, status, after],
  );
  if (campaign.status === 'error') return <ErrorState error={campaign.error} retry={campaign.reload} />;
  const subject = campaign.data?.message_content.subject ?? '…';
  return (
    <>
      <PageHeader title={`Deliveries: ${subject}`} back={{ to: `campaigns/${id}/send`, label: 'Sending progress' }}>
        <Link className="button" to={`campaigns/${id}/report`}>
          Report
        </Link>
      </PageHeader>
      <section className="card stack" aria-label="Deliveries">
        <form className="row" onSubmit={(e) => e.preventDefault()}>
          <label>
            Status
            <select value={status ?? ''} onChange={(e) => navigate(withQuery(loc, { status: e.target.value, after: null }), { replace: true })}>
              <option value="">Every status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s[0]!.toUpperCase() + s.slice(1)}
                </option>
              ))}
            </select>
          </label>
        </form>
        {page.status === 'error' ? (
          <ErrorState error={page.error} retry={page.reload} />
        ) : !page.data ? (
          <Loading />
        ) : page.data.items.length === 0 ? (
          <Empty title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
            <p>{status ? 'Choose another status.' : 'Records appear once the campaign is sent and its recipients are frozen.'}</p>
          </Empty>
        ) : (
          <>
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Delivery records" aria-busy={page.status === 'loading'}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Recipient</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="num">
                      Attempts
                    </th>
                    <th scope="col">Last response</th>
                    <th scope="col" className="hide-narrow">
                      Updated
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.items.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <Link to={`subscribers/${d.subscriber_id}`}>{d.email}</Link>
                      </td>
                      <td>
                        <span className={`badge ${TONE[d.status] ?? ''}`}>{d.status}</span>
                      </td>
                      <td className="num">{d.attempts}</td>
                      <td className="response">{d.last_response ?? '—'}</td>
                      <td className="hide-narrow">{formatDate(d.sent_at ?? d.updated_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              total={page.data.pagination.total}
              shown={page.data.items.length}
              atStart={after === 0}
              firstHref={withQuery(loc, { after: null })}
              nextHref={
                page.data.pagination.has_more && page.data.pagination.next_cursor
                  ? withQuery(loc, { after: String(page.data.pagination.next_cursor) })
                  : null
              }
            />
          </>
        )}
      </section>
    </>
  );
}
