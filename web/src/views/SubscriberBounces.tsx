import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { Answer } from '../api/types';
import { useApi } from '../api/useApi';
import { DataTable, DateTime } from '../ui/data';
import { ErrorState, Loading } from '../ui/kit';

const PAGE = 25;
type Item = Answer<'/api/v2/bounces', 'get'>['items'][number];

/**
 * The bounces recorded for one subscriber, oldest first, with the campaign, status and diagnosis; further pages
 * (keyset, by bounce id) are appended on request; the parent remounts it to start over. Reading bounces needs the campaigns privilege: the caller checks.
 */
export default function SubscriberBounces({ subscriberId }: { subscriberId: number }) {
  const [after, setAfter] = useState(0);
  const [earlier, setEarlier] = useState<Item[]>([]);
  const page = useApi(
    () => unwrap(api.GET('/api/v2/bounces', { params: { query: { subscriber_id: subscriberId, after_id: after, limit: PAGE } } })),
    [subscriberId, after],
  );
  if (page.status === 'error') return <ErrorState error={page.error} retry={page.reload} />;
  if (!page.data) return <Loading />;
  const shown = [...earlier, ...page.data.items];
  if (shown.length === 0) return <p className="muted">No bounces recorded.</p>;
  const { has_more: hasMore, next_cursor: next, total } = page.data.pagination;
  return (
    <div className="stack">
      <DataTable
        testId="subscriber-bounces"
        columns={[{ label: 'When' }, { label: 'Campaign' }, { label: 'Status' }, { label: 'Diagnosis', hideNarrow: true }]}
      >
        {shown.map((b) => (
          <tr key={b.id}>
            <td>
              <DateTime value={b.date} />
            </td>
            <td>{b.message_subject ?? (b.message_id ? `#${b.message_id}` : '—')}</td>
            <td>{b.status ?? '—'}</td>
            <td className="hide-narrow muted">{b.comment || '—'}</td>
          </tr>
        ))}
      </DataTable>
      <p className="muted">
        {shown.length} shown of {total.toLocaleString('en')}
      </p>
      {hasMore && next !== null && (
        <div>
          <button
            type="button"
            className="button"
            onClick={() => {
              setEarlier(shown);
              setAfter(next);
            }}
          >
            More bounces
          </button>
        </div>
      )}
    </div>
  );
}
