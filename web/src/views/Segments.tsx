import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link } from '../router';
import { PagedTable, useAddressCursor } from '../ui/data';
import { Empty, PageHeader } from '../ui/kit';
import { formatDateTime } from '../ui/dates';

const PAGE = 50;

/** Saved segments, each with how many it matches now (one count each: the counts run in the database). */
export default function Segments() {
  const after = useAddressCursor();
  const page = useApi(async () => {
    const segments = await unwrap(api.GET('/api/v2/segments', { params: { query: { after_id: after, limit: PAGE } } }));
    const counts = await Promise.all(
      segments.items.map((s) =>
        unwrap(api.GET('/api/v2/segments/{segmentId}/count', { params: { path: { segmentId: s.id } } })).then(
          (c) => c.count,
          () => null,
        ),
      ),
    );
    return { ...segments, counts };
  }, [after]);

  return (
    <>
      <PageHeader title="Segments">
        <Link className="button primary" to="segments/new">
          New segment
        </Link>
      </PageHeader>
      <PagedTable
        state={page}
        after={after}
        columns={[
          { label: 'Name' },
          { label: 'Description', hideNarrow: true },
          { label: 'Changed', hideNarrow: true },
          { label: 'Matching', num: true },
        ]}
        empty={
          <Empty title="No segments yet">
            <p>A segment picks subscribers by their attributes, lists and what they opened or clicked; send a campaign to it.</p>
          </Empty>
        }
        row={(segment, i, data) => {
          const count = data.counts[i] ?? null;
          return (
            <tr key={segment.id}>
              <td>
                <Link to={`segments/${segment.id}`}>{segment.name}</Link>
              </td>
              <td className="hide-narrow muted">{segment.description || '—'}</td>
              <td className="hide-narrow muted">{formatDateTime(segment.updated_at)}</td>
              <td className="num">{count === null ? '—' : count.toLocaleString()}</td>
            </tr>
          );
        }}
      />
    </>
  );
}
