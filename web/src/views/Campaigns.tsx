import { useState } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import type { CampaignListItem } from '../api/types';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation, withQuery } from '../router';
import { ConfirmDialog, Empty, ErrorState, Loading, Notice, PageHeader, Pager, formatDate, useAction } from '../ui/kit';
import { STATUS_LABELS, STATUS_ORDER, StatusBadge, canDelete, explainConflict, rate } from './campaign/status';
import './campaign/campaign.css';

const PAGE = 25;

/**
 * The administrator's campaigns with their lists and figures — one request per page: GET /campaigns carries them
 * from the counters the service keeps (figures), so nothing is recounted per row. Filter and page stay in the address.
 */
export default function Campaigns() {
  const loc = useLocation();
  const after = Number(loc.query.get('after')) || 0;
  const status = loc.query.get('status') ?? '';
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
        <label>
          Status
          <select value={status} onChange={(e) => navigate(withQuery(loc, { status: e.target.value, after: null }))}>
            <option value="">All statuses</option>
            {STATUS_ORDER.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
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
        <Empty title={status ? `No campaigns are ${STATUS_LABELS[status]?.toLowerCase() ?? status}` : 'No campaigns yet'}>
          <p>{status ? 'Choose another status, or write a new campaign.' : 'Write your first campaign to send it to your lists.'}</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="campaigns">
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="hide-narrow">
                    Lists
                  </th>
                  <th scope="col" className="num">
                    Sent / total
                  </th>
                  <th scope="col" className="num hide-narrow">
                    Opened
                  </th>
                  <th scope="col" className="num hide-narrow">
                    Clicked
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <Link to={`campaigns/${c.id}`}>{c.message_content.subject}</Link>
                      <div className="muted small">{formatDate(c.message_metadata.sent ?? c.updated_at)}</div>
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
                      <button type="button" className="button subtle" disabled={copy.busy} onClick={() => void copyCampaign(c)} aria-label={`Copy “${c.message_content.subject}”`}>
                        Copy
                      </button>
                      {canDelete(c.message_metadata.status) && (
                        <button type="button" className="button subtle danger" onClick={() => setDeleting(c)} aria-label={`Delete “${c.message_content.subject}”`}>
                          Delete
                        </button>
                      )}
                    </td>
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
            nextHref={page.data.pagination.has_more && page.data.pagination.next_cursor ? withQuery(loc, { after: String(page.data.pagination.next_cursor) }) : null}
          />
        </>
      )}
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
          setNotice({ kind: 'success', text: `“${target.message_content.subject}” was deleted.` });
          page.reload();
        }}
      >
        <p>
          “{deleting?.message_content.subject}” is deleted with its list links, deliveries and statistics. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
