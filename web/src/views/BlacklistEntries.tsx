import { useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation, withQuery } from '../router';
import { Empty, ErrorState, Loading, Pager, formatDate } from '../ui/kit';

const PAGE = 50;

/**
 * Every blacklist entry with its date and reason, filtered by a part of the address, cursor pages; filter and page
 * are kept in the address (`find`, `after`) beside the looked-up `email`. `version` changes after an add or remove.
 */
export default function BlacklistEntries({ version }: { version: number }) {
  const loc = useLocation();
  const find = loc.query.get('find') ?? '';
  const after = Number(loc.query.get('after')) || 0;
  const [filter, setFilter] = useState(find);

  useEffect(() => setFilter(find), [find]);
  // Typing filters after a short pause, as the Subscribers search does.
  useEffect(() => {
    if (filter === find) return;
    const timer = setTimeout(() => navigate(withQuery(loc, { find: filter, after: null }), { replace: true }), 300);
    return () => clearTimeout(timer);
  }, [filter, find, loc]);

  const page = useApi(
    () =>
      unwrap(
        api.GET('/api/v2/blacklist', {
          params: { query: { after_id: after, limit: PAGE, ...(find ? { email: find } : {}) } },
        }),
      ),
    [find, after, version],
  );

  return (
    <section className="card stack" aria-labelledby="blacklist-entries">
      <h2 id="blacklist-entries">Blacklisted addresses</h2>
      <form className="row" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Filter by e-mail
          <input type="search" value={filter} placeholder="part of an address" onChange={(e) => setFilter(e.target.value)} />
        </label>
      </form>
      {page.status === 'error' ? (
        <ErrorState error={page.error} retry={page.reload} />
      ) : !page.data ? (
        <Loading />
      ) : page.data.items.length === 0 ? (
        <Empty title={find ? 'Nothing matches' : 'The blacklist is empty'}>
          <p>{find ? 'Try another part of the address.' : 'Addresses added here or blacklisted elsewhere are listed.'}</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap" aria-busy={page.status === 'loading'}>
            <table>
              <thead>
                <tr>
                  <th scope="col">E-mail</th>
                  <th scope="col">Added</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((entry) => (
                  <tr key={entry.id}>
                    <td>
                      <Link to={withQuery(loc, { email: entry.email })}>{entry.email}</Link>
                    </td>
                    <td>{formatDate(entry.added)}</td>
                    <td className="muted">{entry.reason || '—'}</td>
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
  );
}
