import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, navigate } from '../router';
import { PagedTable, useAddressCursor } from '../ui/data';
import { FormDialog } from '../ui/FormDialog';
import { Empty, PageHeader, useAction } from '../ui/kit';
import { ListFields, listBody, type ListDraft } from './ListFields';

const PAGE = 50;

/** All lists the administrator can reach, with their member counts (counters: constant time per list). */
export default function Lists() {
  const after = useAddressCursor();
  const [creating, setCreating] = useState(false);
  const page = useApi(async () => {
    const lists = await unwrap(api.GET('/api/v2/lists', { params: { query: { after_id: after, limit: PAGE } } }));
    const counts = await Promise.all(
      lists.items.map((l) =>
        unwrap(api.GET('/api/v2/lists/{listId}/subscribers/count', { params: { path: { listId: l.id } } })).then((c) => c.subscribers_count),
      ),
    );
    return { ...lists, counts };
  }, [after]);

  return (
    <>
      <PageHeader title="Lists">
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          New list
        </button>
      </PageHeader>
      <CreateList open={creating} onClose={() => setCreating(false)} />
      <PagedTable
        state={page}
        after={after}
        columns={[{ label: 'Name' }, { label: 'Description', hideNarrow: true }, { label: 'Visibility' }, { label: 'Members', num: true }]}
        empty={
          <Empty title="No lists yet">
            <p>Create a list to start collecting subscribers.</p>
          </Empty>
        }
        row={(list, i, data) => (
          <tr key={list.id}>
            <td>
              <Link to={`lists/${list.id}`}>{list.name}</Link>
            </td>
            <td className="hide-narrow muted">{list.description || '—'}</td>
            <td>{list.public ? <span className="badge good">Public</span> : <span className="badge">Private</span>}</td>
            <td className="num">{data.counts[i]?.toLocaleString('en')}</td>
          </tr>
        )}
      />
    </>
  );
}

function CreateList({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [draft, setDraft] = useState<ListDraft>({ name: '', description: '', public: false });
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      const list = await unwrap(api.POST('/api/v2/lists', { body: listBody(draft) }));
      navigate(`lists/${list.id}`);
    });
  return (
    <FormDialog title="New list" open={open} onClose={onClose} onSubmit={submit} submitLabel="Create list" busy={action.busy} error={action.error}>
      <ListFields draft={draft} onChange={setDraft} publicLabel="Public (people can subscribe themselves)" />
    </FormDialog>
  );
}
