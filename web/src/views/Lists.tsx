import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation, withQuery } from '../router';
import { Dialog, Empty, ErrorState, Loading, Notice, PageHeader, Pager, useAction } from '../ui/kit';

const PAGE = 50;

/** All lists the administrator can reach, with their member counts (counters: constant time per list). */
export default function Lists() {
  const loc = useLocation();
  const after = Number(loc.query.get('after')) || 0;
  const [creating, setCreating] = useState(false);
  const page = useApi(async () => {
    const lists = await unwrap(api.GET('/api/v2/lists', { params: { query: { after_id: after, limit: PAGE } } }));
    const counts = await Promise.all(
      lists.items.map((l) =>
        unwrap(api.GET('/api/v2/lists/{listId}/subscribers/count', { params: { path: { listId: l.id } } })).then(
          (c) => c.subscribers_count,
        ),
      ),
    );
    return { ...lists, counts };
  }, [after]);

  const counts = page.data?.counts ?? [];
  return (
    <>
      <PageHeader title="Lists">
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          New list
        </button>
      </PageHeader>
      <CreateList open={creating} onClose={() => setCreating(false)} />
      {page.status === 'error' ? (
        <ErrorState error={page.error} retry={page.reload} />
      ) : !page.data ? (
        <Loading />
      ) : page.data.items.length === 0 ? (
        <Empty title="No lists yet">
          <p>Create a list to start collecting subscribers.</p>
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
                  <th scope="col">Visibility</th>
                  <th scope="col" className="num">
                    Members
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((list, i) => (
                  <tr key={list.id}>
                    <td>
                      <Link to={`lists/${list.id}`}>{list.name}</Link>
                    </td>
                    <td className="hide-narrow muted">{list.description || '—'}</td>
                    <td>{list.public ? <span className="badge good">Public</span> : <span className="badge">Private</span>}</td>
                    <td className="num">{counts[i]?.toLocaleString('en')}</td>
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
    </>
  );
}

function CreateList({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isPublic, setPublic] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await action.run(async () => {
      const list = await unwrap(api.POST('/api/v2/lists', { body: { name, description: description || null, public: isPublic } }));
      navigate(`lists/${list.id}`);
    });
  };
  return (
    <Dialog title="New list" open={open} onClose={onClose}>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        {action.error && <Notice kind="error">{action.error}</Notice>}
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Description
          <textarea value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} /> Public (people can subscribe
          themselves)
        </label>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={action.busy}>
            Create list
          </button>
        </div>
      </form>
    </Dialog>
  );
}
