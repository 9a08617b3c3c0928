import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, navigate } from '../router';
import { PagedTable, useAddressCursor } from '../ui/data';
import { FormDialog } from '../ui/FormDialog';
import { ConfirmDialog, Empty, Notice, PageHeader, useAction } from '../ui/kit';
import { allLists, pageData, type SubscribePage } from './signup-forms/load';
import { idsOf } from './signup-forms/settings';
import './templates.css';

const PAGE = 50;

/** Subscribe pages (hosted sign-up forms): which lists each offers, whether it is live, its public form. */
export default function SignupForms() {
  const after = useAddressCursor();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<SubscribePage | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const page = useApi(async () => {
    const [pages, lists] = await Promise.all([
      unwrap(api.GET('/api/v2/subscribe-pages', { params: { query: { after_id: after, limit: PAGE } } })),
      allLists(),
    ]);
    const byId = new Map(lists.map((l) => [l.id, l]));
    // The lists a visitor can join: the public ones of each page's `lists` setting, in its order.
    const offered = await Promise.all(
      pages.items.map(async (p) => {
        const ids = idsOf((await pageData(p.id)).find((item) => item.name === 'lists')?.data);
        return ids.flatMap((id) => (byId.get(id)?.public ? [byId.get(id)!.name] : []));
      }),
    );
    return { ...pages, offered };
  }, [after]);

  return (
    <>
      <PageHeader title="Sign-up forms">
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          New sign-up form
        </button>
      </PageHeader>
      <p className="muted">Hosted forms where people subscribe themselves to public lists. Each can also be pasted into another site.</p>
      {notice && <Notice kind="success">{notice}</Notice>}
      <CreatePage open={creating} onClose={() => setCreating(false)} />
      <PagedTable
        state={page}
        after={after}
        region="Sign-up forms"
        columns={[
          { label: 'Title' },
          { label: 'State' },
          { label: 'Lists offered', hideNarrow: true },
          { label: 'Public form' },
          { label: 'Actions', hiddenLabel: true },
        ]}
        empty={
          <Empty title="No sign-up forms yet">
            <p>Create one, choose the lists it offers, and make it active.</p>
          </Empty>
        }
        row={(p, i, data) => {
          const offered = data.offered[i] ?? [];
          return (
            <tr key={p.id}>
              <td className="break">
                <Link to={`signup-forms/${p.id}`}>{p.title}</Link>
              </td>
              <td>
                {p.active ? <span className="badge good">Active</span> : <span className="badge">Inactive</span>}
                {p.active && offered.length === 0 && <div className="small field-error">No list to join: takes no sign-ups</div>}
              </td>
              <td className="hide-narrow small">{offered.length > 0 ? offered.join(', ') : '—'}</td>
              <td>
                {p.active ? (
                  <a href={`/subscribe/${p.id}`} target="_blank" rel="noreferrer">
                    Open<span className="visually-hidden"> the public form of {p.title}</span>
                  </a>
                ) : (
                  <span className="muted small">Not live</span>
                )}
              </td>
              <td className="num">
                <button type="button" className="button subtle danger" onClick={() => setDeleting(p)}>
                  Delete<span className="visually-hidden"> {p.title}</span>
                </button>
              </td>
            </tr>
          );
        }}
      />
      <ConfirmDialog
        title="Delete this sign-up form?"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete sign-up form"
        confirm={async () => {
          if (!deleting) return;
          await unwrap(api.DELETE('/api/v2/subscribe-pages/{pageId}', { params: { path: { pageId: deleting.id } } }));
          setNotice(`“${deleting.title}” deleted.`);
          page.reload();
        }}
      >
        <p>
          “{deleting?.title}” and its settings will be deleted. Its public form, and any copy of it pasted into another site, will answer “not found”.
          Subscribers who signed up through it stay subscribed.
        </p>
      </ConfirmDialog>
    </>
  );
}

function CreatePage({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [title, setTitle] = useState('');
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      // Created inactive: it goes live once it offers a list (the editor sees to that).
      const made = await unwrap(api.POST('/api/v2/subscribe-pages', { body: { title: title.trim(), active: false } }));
      navigate(`signup-forms/${made.id}`);
    });
  return (
    <FormDialog title="New sign-up form" open={open} onClose={onClose} onSubmit={submit} submitLabel="Create" busy={action.busy} error={action.error}>
      <label>
        Title
        <input required maxLength={255} value={title} onChange={(e) => setTitle(e.target.value)} />
      </label>
      <p className="muted small">The form&apos;s heading unless you set another; visitors also see it in their browser&apos;s tab.</p>
    </FormDialog>
  );
}
