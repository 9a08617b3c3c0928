import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, useLocation } from '../router';
import { Empty, ErrorState, Loading, PageHeader, Pager, formatDate } from '../ui/kit';

const PAGE = 50;

/** Saved segments, each with how many it matches now (one count each: the counts run in the database). */
export default function Segments() {
  const loc = useLocation();
  const after = Number(loc.query.get('after')) || 0;
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
      {page.status === 'error' ? (
        <ErrorState error={page.error} retry={page.reload} />
      ) : !page.data ? (
        <Loading />
      ) : page.data.items.length === 0 ? (
        <Empty title="No segments yet">
          <p>A segment picks subscribers by their attributes, lists and what they opened or clicked; send a campaign to it.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col" className="hide-narrow">
                    Description
                  </th>
                  <th scope="col" className="hide-narrow">
                    Changed
                  </th>
                  <th scope="col" className="num">
                    Matching
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((segment, i) => {
                  const count = page.data?.counts[i] ?? null;
                  return (
                  <tr key={segment.id}>
                    <td>
                      <Link to={`segments/${segment.id}`}>{segment.name}</Link>
                    </td>
                    <td className="hide-narrow muted">{segment.description || '—'}</td>
                    <td className="hide-narrow muted">{formatDate(segment.updated_at)}</td>
                    <td className="num">{count === null ? '—' : count.toLocaleString()}</td>
                  </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager
            total={page.data.pagination.total}
            shown={page.data.items.length}
            atStart={after === 0}
            firstHref="segments"
            nextHref={page.data.pagination.has_more ? `segments?after=${page.data.pagination.next_cursor}` : null}
          />
        </>
      )}
    </>
  );
}
