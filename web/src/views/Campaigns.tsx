import { nameOf } from './campaign/name';
import { useState } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import type { CampaignListItem } from '../api/types';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation } from '../router';
import { AddressSelect, PagedTable, useAddressCursor } from '../ui/data';
import { ConfirmDialog, Empty, Notice, PageHeader, useAction } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import { STATUS_LABELS, STATUS_ORDER, StatusBadge, canDelete, explainConflict, rate } from './campaign/status';
import './campaign/campaign.css';

const PAGE = 25;
const STATUS_CHOICES = STATUS_ORDER.map((s) => ({ value: s, label: STATUS_LABELS[s] ?? s }));

/**
 * The administrator's campaigns with their lists and figures — one request per page: GET /campaigns carries them
 * from the counters the service keeps (figures), so nothing is recounted per row. Filter and page stay in the address.
 */
export default function Campaigns() {
  const after = useAddressCursor();
  const status = useLocation().query.get('status') ?? '';
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const [deleting, setDeleting] = useState<CampaignListItem | null>(null);
  const copy = useAction();
  const page = useApi(
    () =>
      unwrap(
        api.GET('/api/v2/campaigns', {
          params: { query: { after_id: after, limit: PAGE, ...(status ? { status: status as (typeof STATUS_ORDER)[number] } : {}) } },
        }),
      ),
    [after, status],
  );

  const copyCampaign = async (campaign: CampaignListItem) => {
    setNotice(null);
    await copy.run(async () => {
      const made = await unwrap(api.POST('/api/v2/campaigns/{messageId}/copy', { params: { path: { messageId: campaign.id } } }));
      navigate(`campaigns/${made.id}?copied=${campaign.id}`);
    });
  };

  return (
    <>
      <PageHeader title="Campaigns">
        <Link className="button primary" to="campaigns/new">
          New campaign
        </Link>
      </PageHeader>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {copy.error && <Notice kind="error">{copy.error}</Notice>}
      <form className="row filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <AddressSelect label="Status" name="status" value={status} anyLabel="All statuses" options={STATUS_CHOICES} />
      </form>
      <PagedTable
        state={page}
        after={after}
        testId="campaigns"
        columns={[
          { label: 'Subject' },
          { label: 'Status' },
          { label: 'Lists', hideNarrow: true },
          { label: 'Sent / total', num: true },
          { label: 'Opened', num: true, hideNarrow: true },
          { label: 'Clicked', num: true, hideNarrow: true },
          { label: 'Actions', hiddenLabel: true },
        ]}
        empty={
          <Empty title={status ? `No campaigns are ${STATUS_LABELS[status]?.toLowerCase() ?? status}` : 'No campaigns yet'}>
            <p>{status ? 'Choose another status, or write a new campaign.' : 'Write your first campaign to send it to your lists.'}</p>
          </Empty>
        }
        row={(c) => (
          <tr key={c.id}>
            <td>
              <Link to={`campaigns/${c.id}`}>{nameOf(c)}</Link>
              <div className="muted small">{formatDateTime(c.message_metadata.sent ?? c.updated_at)}</div>
            </td>
            <td>
              <StatusBadge status={c.message_metadata.status} />
            </td>
            <td className="hide-narrow">{c.figures.lists.map((l) => l.name).join(', ') || <span className="muted">None yet</span>}</td>
            <td className="num">
              {c.figures.sent.toLocaleString('en')} / {c.figures.total.toLocaleString('en')}
            </td>
            <td className="num hide-narrow">{rate(c.figures.unique_opens, c.figures.sent)}</td>
            <td className="num hide-narrow">{rate(c.figures.unique_clicks, c.figures.sent)}</td>
            <td className="row-actions">
              <button
                type="button"
                className="button subtle"
                disabled={copy.busy}
                onClick={() => void copyCampaign(c)}
                aria-label={`Copy “${nameOf(c)}”`}
              >
                Copy
              </button>
              {canDelete(c.message_metadata.status) && (
                <button type="button" className="button subtle danger" onClick={() => setDeleting(c)} aria-label={`Delete “${nameOf(c)}”`}>
                  Delete
                </button>
              )}
            </td>
          </tr>
        )}
      />
      <ConfirmDialog
        title="Delete this campaign?"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete campaign"
        confirm={async () => {
          const target = deleting!;
          try {
            await unwrap(api.DELETE('/api/v2/campaigns/{messageId}', { params: { path: { messageId: target.id } } }));
          } catch (err) {
            throw new Error(err instanceof ApiError ? explainConflict(err, 'delete') : String(err));
          }
          setNotice({ kind: 'success', text: `“${nameOf(target)}” was deleted.` });
          page.reload();
        }}
      >
        <p>“{deleting ? nameOf(deleting) : ''}” is deleted with its list links, deliveries and statistics. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
