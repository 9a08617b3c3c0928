import { useState } from 'react';
import { api, fetchBlob, unwrap } from '../api/client';
import type { List } from '../api/types';
import { useApi } from '../api/useApi';
import { Link, navigate } from '../router';
import { DateTime, PagedTable, useAddressCursor } from '../ui/data';
import { FormDialog } from '../ui/FormDialog';
import { ConfirmDialog, Empty, ErrorState, Loading, Notice, PageHeader, SubscriberStatus, useAction } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import { ListFields, listBody, type ListDraft } from './ListFields';

const PAGE = 50;

/** One list: its settings, its members (cursor paging in the address), adding and removing members, CSV export. */
export default function ListPage({ id }: { id: number }) {
  const after = useAddressCursor();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const exporting = useAction();

  const list = useApi(async () => {
    const [info, count] = await Promise.all([
      unwrap(api.GET('/api/v2/lists/{listId}', { params: { path: { listId: id } } })),
      unwrap(api.GET('/api/v2/lists/{listId}/subscribers/count', { params: { path: { listId: id } } })),
    ]);
    return { info, count: count.subscribers_count };
  }, [id]);
  const members = useApi(
    () => unwrap(api.GET('/api/v2/lists/{listId}/subscribers', { params: { path: { listId: id }, query: { after_id: after, limit: PAGE } } })),
    [id, after],
  );

  if (list.status === 'error') return <ErrorState error={list.error} retry={list.reload} />;
  if (!list.data) return <Loading />;
  const { info, count } = list.data;
  const reloadAll = () => {
    list.reload();
    members.reload();
  };

  const exportCsv = () =>
    exporting.run(async () => {
      const blob = await fetchBlob(`/api/v2/subscribers/export?list_id=${id}`);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `${info.name.replace(/[^\w.-]+/g, '_')}.csv`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });

  return (
    <>
      <PageHeader title={info.name} back={{ to: 'lists', label: 'Lists' }}>
        <button type="button" className="button" onClick={() => setEditing(true)}>
          Edit
        </button>
        <button type="button" className="button" disabled={exporting.busy} onClick={() => void exportCsv()}>
          {exporting.busy ? 'Exporting…' : 'Export CSV'}
        </button>
        <button type="button" className="button danger" onClick={() => setDeleting(true)}>
          Delete
        </button>
      </PageHeader>
      {exporting.error && <Notice kind="error">{exporting.error}</Notice>}
      {notice && <Notice kind="success">{notice}</Notice>}
      <section className="card">
        <dl className="facts">
          <dt>Description</dt>
          <dd>{info.description || '—'}</dd>
          <dt>Visibility</dt>
          <dd>{info.public ? 'Public' : 'Private'}</dd>
          <dt>Members</dt>
          <dd data-testid="member-count">{count.toLocaleString('en')}</dd>
          <dt>Created</dt>
          <dd>{formatDateTime(info.created_at)}</dd>
        </dl>
      </section>

      <div className="section-title">
        <h2>Members</h2>
        <button type="button" className="button primary" onClick={() => setAdding(true)}>
          Add members
        </button>
      </div>
      <PagedTable
        state={members}
        after={after}
        columns={[{ label: 'E-mail' }, { label: 'Status' }, { label: 'Since', hideNarrow: true }, { label: 'Actions', hiddenLabel: true }]}
        empty={
          <Empty title={after ? 'No more members' : 'This list has no members yet'}>
            <p>Add people by e-mail, or import a CSV file.</p>
          </Empty>
        }
        row={(m) => (
          <tr key={m.id}>
            <td className="break">
              <Link to={`subscribers/${m.id}`}>{m.email}</Link>
            </td>
            <td>
              <SubscriberStatus confirmed={m.confirmed} blacklisted={m.blacklisted} />
            </td>
            <td className="hide-narrow">
              <DateTime value={m.created_at} />
            </td>
            <td className="num">
              <button type="button" className="button subtle" onClick={() => setRemoving(m.email)} aria-label={`Remove ${m.email}`}>
                Remove
              </button>
            </td>
          </tr>
        )}
      />

      <EditList list={info} open={editing} onClose={() => setEditing(false)} onSaved={list.reload} />
      <AddMembers
        listId={id}
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(n) => {
          setNotice(`${n} ${n === 1 ? 'person' : 'people'} added.`);
          reloadAll();
        }}
      />
      <ConfirmDialog
        title={`Delete “${info.name}”?`}
        open={deleting}
        onClose={() => setDeleting(false)}
        confirmLabel="Delete list"
        confirm={async () => {
          await unwrap(api.DELETE('/api/v2/lists/{listId}', { params: { path: { listId: id } } }));
          navigate('lists');
        }}
      >
        <p>
          This deletes the list and its <strong>{count.toLocaleString('en')}</strong> {count === 1 ? 'membership' : 'memberships'}. The subscribers
          themselves stay. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        title="Remove member?"
        open={removing !== null}
        onClose={() => setRemoving(null)}
        confirmLabel="Remove"
        confirm={async () => {
          await unwrap(api.DELETE('/api/v2/lists/{listId}/subscribers', { params: { path: { listId: id }, query: { emails: [removing!] } } }));
          setNotice(`${removing} removed from the list.`);
          reloadAll();
        }}
      >
        <p>
          {removing} leaves “{info.name}”. The subscriber stays.
        </p>
      </ConfirmDialog>
    </>
  );
}

function EditList({ list, open, onClose, onSaved }: { list: List; open: boolean; onClose: () => void; onSaved: () => void }) {
  const [draft, setDraft] = useState<ListDraft>({ name: list.name, description: list.description ?? '', public: list.public });
  const action = useAction();
  const submit = async () => {
    const ok = await action.run(async () => {
      // PUT replaces every field, so the ones this form does not show are sent as they are.
      await unwrap(
        api.PUT('/api/v2/lists/{listId}', {
          params: { path: { listId: list.id } },
          body: {
            ...listBody(draft),
            list_position: list.list_position,
            subject_prefix: list.subject_prefix,
            category: list.category,
            rss_feed: list.rss_feed,
          },
        }),
      );
    });
    if (ok) {
      onSaved();
      onClose();
    }
  };
  return (
    <FormDialog title="Edit list" open={open} onClose={onClose} onSubmit={submit} submitLabel="Save" busy={action.busy} error={action.error}>
      <ListFields draft={draft} onChange={setDraft} publicLabel="Public" />
    </FormDialog>
  );
}

function AddMembers({ listId, open, onClose, onAdded }: { listId: number; open: boolean; onClose: () => void; onAdded: (n: number) => void }) {
  const [text, setText] = useState('');
  const [autoConfirm, setAutoConfirm] = useState(true);
  const action = useAction();
  const submit = async () => {
    const emails = [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
    let added = 0;
    const ok = await action.run(async () => {
      for (let i = 0; i < emails.length; i += 1000) {
        const answer = await unwrap(
          api.POST('/api/v2/lists/{listId}/subscribers', {
            params: { path: { listId } },
            // An administrator typing addresses here means to add people, new ones included.
            body: { emails: emails.slice(i, i + 1000), auto_confirm: autoConfirm, create_unknown: true },
          }),
        );
        added += answer.length;
      }
    });
    if (ok) {
      setText('');
      onAdded(added);
      onClose();
    }
  };
  return (
    <FormDialog title="Add members" open={open} onClose={onClose} onSubmit={submit} submitLabel="Add" busy={action.busy} error={action.error}>
      <label>
        E-mail addresses (one a line, or separated by commas)
        <textarea required value={text} onChange={(e) => setText(e.target.value)} rows={6} />
      </label>
      <fieldset>
        <legend>New members are</legend>
        <label className="inline">
          <input type="radio" name="confirm" checked={autoConfirm} onChange={() => setAutoConfirm(true)} /> Confirmed now
        </label>
        <label className="inline">
          <input type="radio" name="confirm" checked={!autoConfirm} onChange={() => setAutoConfirm(false)} /> Sent a confirmation mail
        </label>
      </fieldset>
      <p className="muted">Blacklisted addresses are skipped.</p>
    </FormDialog>
  );
}
