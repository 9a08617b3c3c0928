import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { AttributeDefinition, Subscriber } from '../api/types';
import { useApi } from '../api/useApi';
import { can, useAuth } from '../auth';
import { Link, navigate } from '../router';
import { AttributeField } from '../ui/AttributeField';
import SubscriberBounces from './SubscriberBounces';
import { DataTable, DateTime } from '../ui/data';
import { ConfirmDialog, ErrorState, Loading, Notice, PageHeader, SubscriberStatus, useAction } from '../ui/kit';
import { formatDateTime } from '../ui/dates';

/** One subscriber: flags and actions, attribute values with a control per type, lists joined and left, history. */
export default function SubscriberPage({ id }: { id: number }) {
  const path = { subscriberId: id };
  const [deleting, setDeleting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const mayReadBounces = can(useAuth().admin, 'campaigns');
  const data = useApi(async () => {
    const [subscriber, values, definitions, lists] = await Promise.all([
      unwrap(api.GET('/api/v2/subscribers/{subscriberId}', { params: { path } })),
      unwrap(api.GET('/api/v2/subscribers/{subscriberId}/attributes', { params: { path, query: { limit: 100 } } })),
      // Definitions need the settings privilege; without it the values still carry theirs.
      unwrap(api.GET('/api/v2/attributes', { params: { query: { limit: 100 } } })).then(
        (page) => page.items,
        () => null,
      ),
      unwrap(api.GET('/api/v2/lists', { params: { query: { limit: 100 } } })).then((page) => page.items),
    ]);
    return { subscriber, values: values.items, definitions, lists };
  }, [id]);

  if (data.status === 'error') return <ErrorState error={data.error} retry={data.reload} />;
  if (!data.data) return <Loading />;
  const { subscriber: s, values, lists } = data.data;
  const definitions = data.data.definitions ?? values.map((v) => v.definition);

  const act = (label: string, fn: () => Promise<unknown>) =>
    void action.run(async () => {
      await fn();
      setNotice(label);
      data.reload();
    });
  const put = (body: { blacklisted?: boolean; confirmed?: boolean }) =>
    unwrap(api.PUT('/api/v2/subscribers/{subscriberId}', { params: { path }, body: { email: s.email, ...body } }));

  return (
    <>
      <PageHeader title={s.email} back={{ to: 'subscribers', label: 'Subscribers' }}>
        {s.blacklisted ? (
          <button
            type="button"
            className="button"
            disabled={action.busy}
            onClick={() => act('Taken off the blacklist.', () => put({ blacklisted: false }))}
          >
            Unblacklist
          </button>
        ) : (
          <button type="button" className="button" disabled={action.busy} onClick={() => act('Blacklisted.', () => put({ blacklisted: true }))}>
            Blacklist
          </button>
        )}
        <button
          type="button"
          className="button"
          disabled={action.busy || s.bounce_count === 0}
          onClick={() =>
            act('Bounce count reset.', () => unwrap(api.POST('/api/v2/subscribers/{subscriberId}/reset-bounce-count', { params: { path } })))
          }
        >
          Reset bounce count
        </button>
        <button type="button" className="button danger" onClick={() => setDeleting(true)}>
          Delete
        </button>
      </PageHeader>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {notice && <Notice kind="success">{notice}</Notice>}
      <Details subscriber={s} onSaved={(m) => (setNotice(m), data.reload())} />

      <div className="section-title">
        <h2>Attributes</h2>
      </div>
      <Attributes
        key={s.updated_at ?? ''}
        subscriberId={id}
        definitions={definitions}
        values={values}
        onSaved={() => (setNotice('Attributes saved.'), data.reload())}
      />

      <div className="section-title">
        <h2>Lists</h2>
      </div>
      <Memberships subscriber={s} lists={lists} onChanged={(m) => (setNotice(m), data.reload())} />

      <div className="section-title">
        <h2>History</h2>
      </div>
      {s.history.length === 0 ? (
        <p className="muted">No history yet.</p>
      ) : (
        <DataTable columns={[{ label: 'When' }, { label: 'What' }, { label: 'Detail', hideNarrow: true }]}>
          {[...s.history].reverse().map((h) => (
            <tr key={h.id}>
              <td>
                <DateTime value={h.created_at} />
              </td>
              <td>{h.summary}</td>
              <td className="hide-narrow muted">{h.detail}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {mayReadBounces && (
        <>
          <div className="section-title">
            <h2>Bounces</h2>
          </div>
          <SubscriberBounces key={`${id}:${s.updated_at ?? ''}`} subscriberId={id} />
        </>
      )}
      <ConfirmDialog
        title={`Delete ${s.email}?`}
        open={deleting}
        onClose={() => setDeleting(false)}
        confirmLabel="Delete subscriber"
        confirm={async () => {
          await unwrap(api.DELETE('/api/v2/subscribers/{subscriberId}', { params: { path } }));
          navigate('subscribers');
        }}
      >
        <p>The subscriber, their {s.subscribed_lists.length} list memberships, attribute values and history are deleted. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

function Details({ subscriber: s, onSaved }: { subscriber: Subscriber; onSaved: (message: string) => void }) {
  const [email, setEmail] = useState(s.email);
  const [confirmed, setConfirmed] = useState(s.confirmed);
  const [html, setHtml] = useState(s.html_email);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(async () => {
      await unwrap(
        api.PUT('/api/v2/subscribers/{subscriberId}', { params: { path: { subscriberId: s.id } }, body: { email, confirmed, html_email: html } }),
      );
    });
    if (ok) onSaved('Subscriber saved.');
  };
  return (
    <form className="card stack" onSubmit={(e) => void submit(e)}>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <div className="row">
        <label>
          E-mail
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} /> Confirmed
        </label>
        <label className="inline">
          <input type="checkbox" checked={html} onChange={(e) => setHtml(e.target.checked)} /> Prefers HTML mail
        </label>
        <button type="submit" className="button primary" disabled={action.busy}>
          Save
        </button>
      </div>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <SubscriberStatus confirmed={s.confirmed} blacklisted={s.blacklisted} />
        </dd>
        <dt>Bounces</dt>
        <dd data-testid="bounce-count">{s.bounce_count}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(s.created_at)}</dd>
        <dt>Changed</dt>
        <dd>{formatDateTime(s.updated_at)}</dd>
      </dl>
    </form>
  );
}

function Attributes(props: {
  subscriberId: number;
  definitions: AttributeDefinition[];
  values: { definition: AttributeDefinition; value: string | null }[];
  onSaved: () => void;
}) {
  const initial = new Map(props.values.map((v) => [v.definition.id, v.value ?? '']));
  const [draft, setDraft] = useState<Map<number, string>>(initial);
  const action = useAction();
  if (props.definitions.length === 0) return <p className="muted">No attributes are defined.</p>;
  const ordered = [...props.definitions].sort((a, b) => (a.list_order ?? 0) - (b.list_order ?? 0) || a.id - b.id);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(async () => {
      for (const d of ordered) {
        const value = draft.get(d.id) ?? '';
        if (value === (initial.get(d.id) ?? '')) continue;
        const params = { path: { subscriberId: props.subscriberId, definitionId: d.id } };
        if (value === '' && initial.has(d.id)) await unwrap(api.DELETE('/api/v2/subscribers/{subscriberId}/attributes/{definitionId}', { params }));
        else await unwrap(api.PUT('/api/v2/subscribers/{subscriberId}/attributes/{definitionId}', { params, body: { value } }));
      }
    });
    if (ok) props.onSaved();
  };
  return (
    <form className="card stack" onSubmit={(e) => void submit(e)} aria-label="Attributes">
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {ordered.map((d) => (
        <AttributeField key={d.id} definition={d} value={draft.get(d.id) ?? ''} onChange={(v) => setDraft(new Map(draft).set(d.id, v))} />
      ))}
      <div>
        <button type="submit" className="button primary" disabled={action.busy}>
          Save attributes
        </button>
      </div>
    </form>
  );
}

function Memberships({
  subscriber: s,
  lists,
  onChanged,
}: {
  subscriber: Subscriber;
  lists: { id: number; name: string }[];
  onChanged: (m: string) => void;
}) {
  const [joining, setJoining] = useState('');
  const action = useAction();
  const joined = new Set(s.subscribed_lists.map((l) => l.id));
  const others = lists.filter((l) => !joined.has(l.id));
  const join = async (event: FormEvent) => {
    event.preventDefault();
    const list = others.find((l) => String(l.id) === joining);
    if (!list) return;
    const ok = await action.run(async () => {
      await unwrap(
        api.POST('/api/v2/lists/{listId}/subscribers', {
          params: { path: { listId: list.id } },
          body: { emails: [s.email], auto_confirm: s.confirmed },
        }),
      );
    });
    if (ok) onChanged(`Joined ${list.name}.`);
  };
  const leave = (list: { id: number; name: string }) =>
    void action.run(async () => {
      await unwrap(api.DELETE('/api/v2/lists/{listId}/subscribers', { params: { path: { listId: list.id }, query: { emails: [s.email] } } }));
      onChanged(`Left ${list.name}.`);
    });
  return (
    <div className="card stack">
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {s.subscribed_lists.length === 0 ? (
        <p className="muted">Not on any list.</p>
      ) : (
        <ul className="plain">
          {s.subscribed_lists.map((l) => (
            <li key={l.id}>
              <Link to={`lists/${l.id}`}>{l.name}</Link>{' '}
              <button type="button" className="button subtle" onClick={() => leave(l)} aria-label={`Leave ${l.name}`}>
                Leave
              </button>
            </li>
          ))}
        </ul>
      )}
      {others.length > 0 && (
        <form className="row" onSubmit={(e) => void join(e)}>
          <label>
            Add to list
            <select value={joining} onChange={(e) => setJoining(e.target.value)}>
              <option value="">Choose a list…</option>
              {others.map((l) => (
                <option key={l.id} value={String(l.id)}>
                  {l.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button" disabled={!joining || action.busy}>
            Join
          </button>
        </form>
      )}
    </div>
  );
}
