import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, useLocation, withQuery } from '../router';
import { DateTime, PagedTable, useAddressCursor, useAddressFilter } from '../ui/data';
import { Empty } from '../ui/kit';

const PAGE = 50;

/**
 * Every blacklist entry with its date and reason, filtered by a part of the address, cursor pages; filter and page
 * are kept in the address (`find`, `after`) beside the looked-up `email`. `version` changes after an add or remove.
 */
export default function BlacklistEntries({ version }: { version: number }) {
  const loc = useLocation();
  const after = useAddressCursor();
  // Typing filters after a short pause, as the Subscribers search does.
  const [find, filter, setFilter] = useAddressFilter('find');

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
      <PagedTable
        state={page}
        after={after}
        busy={page.status === 'loading'}
        columns={[{ label: 'E-mail' }, { label: 'Added' }, { label: 'Reason', hideNarrow: true }]}
        empty={
          <Empty title={find ? 'Nothing matches' : 'The blacklist is empty'}>
            <p>{find ? 'Try another part of the address.' : 'Addresses added here or blacklisted elsewhere are listed.'}</p>
          </Empty>
        }
        row={(entry) => (
          <tr key={entry.id}>
            {/* On a phone the reason column is hidden and the reason shows under the address (styles.css, data-narrow). */}
            <td className="break" data-narrow={entry.reason || undefined}>
              <Link to={withQuery(loc, { email: entry.email })}>{entry.email}</Link>
            </td>
            <td>
              <DateTime value={entry.added} />
            </td>
            <td className="hide-narrow muted">{entry.reason || '—'}</td>
          </tr>
        )}
      />
    </section>
  );
}
