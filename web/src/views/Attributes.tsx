import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { AttributeDefinition } from '../api/types';
import { useApi } from '../api/useApi';
import { ConfirmDialog, Dialog, Empty, ErrorState, Loading, Notice, PageHeader, useAction } from '../ui/kit';

export const TYPES = ['textline', 'textarea', 'checkbox', 'select', 'radio', 'checkboxgroup', 'date', 'hidden', 'creditcardno'] as const;
/** Types whose values are options; a type changes only within its family (docs/api.md). */
const OPTION_TYPES = new Set(['select', 'radio', 'checkboxgroup', 'checkbox']);
const MULTI = new Set(['select', 'radio', 'checkboxgroup']);

/** Subscriber attribute definitions: order, type, options of the multi-valued types. */
export default function Attributes() {
  const [editing, setEditing] = useState<AttributeDefinition | 'new' | null>(null);
  const [deleting, setDeleting] = useState<AttributeDefinition | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'info'; text: string } | null>(null);
  const defs = useApi(() => unwrap(api.GET('/api/v2/attributes', { params: { query: { limit: 100 } } })).then((p) => p.items), []);
  const ordered = [...(defs.data ?? [])].sort((a, b) => (a.list_order ?? 0) - (b.list_order ?? 0) || a.id - b.id);

  const move = async (index: number, by: -1 | 1) => {
    const next = [...ordered];
    const [item] = next.splice(index, 1);
    next.splice(index + by, 0, item!);
    // Orders are rewritten 1..n so a move is always visible, whatever orders were stored.
    for (const [i, d] of next.entries()) {
      if (d.list_order === i + 1) continue;
      await unwrap(api.PUT('/api/v2/attributes/{definitionId}', { params: { path: { definitionId: d.id } }, body: { name: d.name, type: d.type ?? 'textline', order: i + 1 } }));
    }
    defs.reload();
  };

  return (
    <>
      <PageHeader title="Attributes">
        <button type="button" className="button primary" onClick={() => setEditing('new')}>
          New attribute
        </button>
      </PageHeader>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {defs.status === 'error' ? (
        <ErrorState error={defs.error} retry={defs.reload} />
      ) : !defs.data ? (
        <Loading />
      ) : ordered.length === 0 ? (
        <Empty title="No attributes yet">
          <p>Attributes hold what you know about subscribers: a name, a country, the topics they like.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col" className="hide-narrow">
                  Options
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {ordered.map((d, i) => (
                <tr key={d.id}>
                  <td>
                    <button type="button" className="button subtle" aria-label={`Move ${d.name} up`} disabled={i === 0} onClick={() => void move(i, -1)}>
                      ↑
                    </button>
                    <button type="button" className="button subtle" aria-label={`Move ${d.name} down`} disabled={i === ordered.length - 1} onClick={() => void move(i, 1)}>
                      ↓
                    </button>
                  </td>
                  <td>{d.name}</td>
                  <td>{d.type}</td>
                  <td className="hide-narrow muted">{[...d.options].sort((a, b) => a.list_order - b.list_order).map((o) => o.name).join(', ') || '—'}</td>
                  <td className="num">
                    <button type="button" className="button subtle" onClick={() => setEditing(d)} aria-label={`Edit ${d.name}`}>
                      Edit
                    </button>
                    <button type="button" className="button subtle" onClick={() => setDeleting(d)} aria-label={`Delete ${d.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <EditDefinition
          definition={editing === 'new' ? null : editing}
          nextOrder={ordered.length + 1}
          onClose={() => setEditing(null)}
          onSaved={(text) => {
            setNotice(text);
            defs.reload();
          }}
        />
      )}
      <ConfirmDialog
        title={`Delete “${deleting?.name}”?`}
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete attribute"
        confirm={async () => {
          await unwrap(api.DELETE('/api/v2/attributes/{definitionId}', { params: { path: { definitionId: deleting!.id } } }));
          defs.reload();
        }}
      >
        <p>Every subscriber's value for it is deleted too. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

interface DraftOption {
  id: number | null;
  name: string;
}

function EditDefinition(props: { definition: AttributeDefinition | null; nextOrder: number; onClose: () => void; onSaved: (n: { kind: 'success' | 'info'; text: string }) => void }) {
  const d = props.definition;
  const [name, setName] = useState(d?.name ?? '');
  const [type, setType] = useState(d?.type ?? 'textline');
  const [options, setOptions] = useState<DraftOption[]>(
    [...(d?.options ?? [])].sort((a, b) => a.list_order - b.list_order).map((o) => ({ id: o.id, name: o.name })),
  );
  const [newOption, setNewOption] = useState('');
  const action = useAction();
  // An existing definition changes type only within its family.
  const allowedTypes = d ? TYPES.filter((t) => OPTION_TYPES.has(t) === OPTION_TYPES.has(d.type ?? 'textline')) : TYPES;

  const moveOption = (i: number, by: -1 | 1) => {
    const next = [...options];
    const [o] = next.splice(i, 1);
    next.splice(i + by, 0, o!);
    setOptions(next);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let kept: string[] = [];
    const ok = await action.run(async () => {
      const body = {
        name,
        type,
        ...(MULTI.has(type) ? { options: options.map((o, i) => ({ ...(o.id ? { id: o.id } : {}), name: o.name, list_order: i + 1 })) } : {}),
      };
      if (!d) {
        await unwrap(api.POST('/api/v2/attributes', { body: { ...body, order: props.nextOrder } }));
        return;
      }
      const saved = await unwrap(api.PUT('/api/v2/attributes/{definitionId}', { params: { path: { definitionId: d.id } }, body }));
      // The API keeps an option that some subscriber's value uses, even when it was left out.
      const wanted = new Set(options.map((o) => o.id));
      kept = saved.options.filter((o) => !wanted.has(o.id)).map((o) => o.name);
    });
    if (!ok) return;
    props.onSaved(
      kept.length > 0
        ? { kind: 'info', text: `Saved. ${kept.map((k) => `“${k}”`).join(', ')} ${kept.length === 1 ? 'is' : 'are'} still chosen by subscribers, so ${kept.length === 1 ? 'it was' : 'they were'} kept: change those subscribers' values first.` }
        : { kind: 'success', text: `“${name}” saved.` },
    );
    props.onClose();
  };
  return (
    <Dialog title={d ? `Edit “${d.name}”` : 'New attribute'} open onClose={props.onClose}>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        {action.error && <Notice kind="error">{action.error}</Notice>}
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.target.value)}>
            {allowedTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        {MULTI.has(type) && (
          <fieldset>
            <legend>Options</legend>
            <ul className="plain">
              {options.map((o, i) => (
                <li key={o.id ?? `new-${i}`} className="row">
                  <label>
                    <span className="visually-hidden">Option {i + 1}</span>
                    <input value={o.name} onChange={(e) => setOptions(options.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))} />
                  </label>
                  <button type="button" className="button subtle" aria-label={`Move ${o.name} up`} disabled={i === 0} onClick={() => moveOption(i, -1)}>
                    ↑
                  </button>
                  <button type="button" className="button subtle" aria-label={`Move ${o.name} down`} disabled={i === options.length - 1} onClick={() => moveOption(i, 1)}>
                    ↓
                  </button>
                  <button type="button" className="button subtle" aria-label={`Remove ${o.name}`} onClick={() => setOptions(options.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
            <div className="row">
              <label>
                New option
                <input value={newOption} onChange={(e) => setNewOption(e.target.value)} />
              </label>
              <button
                type="button"
                className="button"
                disabled={!newOption.trim()}
                onClick={() => {
                  setOptions([...options, { id: null, name: newOption.trim() }]);
                  setNewOption('');
                }}
              >
                Add option
              </button>
            </div>
          </fieldset>
        )}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={action.busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
