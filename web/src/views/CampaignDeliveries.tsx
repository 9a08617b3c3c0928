import { nameOf } from './campaign/name';
import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, useLocation } from '../router';
import { AddressSelect, PagedTable, useAddressCursor } from '../ui/data';
import { Empty, ErrorState, PageHeader } from '../ui/kit';
import { formatDateTime } from '../ui/dates';

const PAGE = 50;
const STATUSES = ['queued', 'sending', 'sent', 'failed', 'skipped'] as const;
type Status = (typeof STATUSES)[number];
const STATUS_CHOICES = STATUSES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) }));
const TONE: Partial<Record<Status, string>> = { sent: 'good', failed: 'bad' };

/**
 * A campaign's delivery records, one row per recipient: status, attempts and the mail server's last answer. The
 * status filter and the cursor stay in the address (`status`, `after`), so a page can be shared and reloaded.
 */
export default function CampaignDeliveries({ id }: { id: number }) {
  const wanted = useLocation().query.get('status');
  const status = STATUSES.find((s) => s === wanted);
  const after = useAddressCursor();
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
  const subject = campaign.data ? nameOf(campaign.data) : '…';
  return (
    <>
      <PageHeader title={`Deliveries: ${subject}`} back={{ to: `campaigns/${id}/send`, label: 'Sending progress' }}>
        <Link className="button" to={`campaigns/${id}/report`}>
          Report
        </Link>
      </PageHeader>
      <section className="card stack" aria-label="Deliveries">
        <form className="row" onSubmit={(e) => e.preventDefault()}>
          <AddressSelect label="Status" name="status" value={status ?? ''} anyLabel="Every status" options={STATUS_CHOICES} replace />
        </form>
        <PagedTable
          state={page}
          after={after}
          busy={page.status === 'loading'}
          region="Delivery records"
          columns={[
            { label: 'Recipient' },
            { label: 'Status' },
            { label: 'Attempts', num: true, hideNarrow: true },
            { label: 'Last response' },
            { label: 'Updated', hideNarrow: true },
          ]}
          empty={
            <Empty title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
              <p>{status ? 'Choose another status.' : 'Records appear once the campaign is sent and its recipients are frozen.'}</p>
            </Empty>
          }
          row={(d) => (
            // On a phone the Attempts column is hidden and its figure shows under the status (data-narrow).
            <tr key={d.id}>
              <td className="break">
                <Link to={`subscribers/${d.subscriber_id}`}>{d.email}</Link>
              </td>
              <td data-narrow={d.attempts === 1 ? '1 attempt' : `${d.attempts} attempts`}>
                <span className={`badge ${TONE[d.status] ?? ''}`}>{d.status}</span>
              </td>
              <td className="num hide-narrow">{d.attempts}</td>
              <td className="response">{d.last_response ?? '—'}</td>
              <td className="hide-narrow">{formatDateTime(d.sent_at ?? d.updated_at)}</td>
            </tr>
          )}
        />
      </section>
    </>
  );
}
