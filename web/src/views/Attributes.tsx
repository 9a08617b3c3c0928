import { useState, type ComponentType, type ReactNode } from 'react';
import { api, unwrap } from '../api/client';
import type { AdminAttributeDefinition, AttributeDefinition } from '../api/types';
import { useApi } from '../api/useApi';
import { DataTable, Loaded } from '../ui/data';
import { ConfirmDialog, Empty, Notice, PageHeader } from '../ui/kit';
import { AdminAttributeEditor } from './AdminAttributeEditor';
import type { EditorProps, SavedNotice } from './DefinitionFields';
import { SubscriberAttributeEditor } from './SubscriberAttributeEditor';

/** What both kinds of attribute definition share, and all this page needs to list, order and delete them. */
interface Definition {
  id: number;
  name: string;
  type: string | null;
  list_order: number | null;
}

/** One kind of attribute: where its definitions live in the API and how a definition is edited. */
interface Kind<D extends Definition> {
  title: string;
  intro: string;
  deleteText: string;
  load: () => Promise<D[]>;
  setOrder: (d: D, order: number) => Promise<unknown>;
  remove: (d: D) => Promise<unknown>;
  /** The wide-screen column after Type. */
  details: { label: string; render: (d: D) => ReactNode };
  Editor: ComponentType<EditorProps<D>>;
}

const SUBSCRIBER: Kind<AttributeDefinition> = {
  title: 'Attributes',
  intro: 'Attributes hold what you know about subscribers: a name, a country, the topics they like.',
  deleteText: "Every subscriber's value for it is deleted too. This cannot be undone.",
  load: () => unwrap(api.GET('/api/v2/attributes', { params: { query: { limit: 100 } } })).then((p) => p.items),
  setOrder: (d, order) =>
    unwrap(
      api.PUT('/api/v2/attributes/{definitionId}', {
        params: { path: { definitionId: d.id } },
        body: { name: d.name, type: d.type ?? 'textline', order },
      }),
    ),
  remove: (d) => unwrap(api.DELETE('/api/v2/attributes/{definitionId}', { params: { path: { definitionId: d.id } } })),
  details: {
    label: 'Options',
    render: (d) =>
      [...d.options]
        .sort((a, b) => a.list_order - b.list_order)
        .map((o) => o.name)
        .join(', ') || '—',
  },
  Editor: SubscriberAttributeEditor,
};

const ADMINISTRATOR: Kind<AdminAttributeDefinition> = {
  title: 'Administrator attributes',
  intro: 'Attributes hold what you keep about administrators: a phone number, a department. Set their values on the Administrators page.',
  deleteText: "Every administrator's value for it is deleted too. This cannot be undone.",
  load: () => unwrap(api.GET('/api/v2/administrators/attributes', { params: { query: { limit: 100 } } })).then((p) => p.items),
  // PUT changes only the fields sent besides the name (docs/api.md), so the order goes alone.
  setOrder: (d, order) =>
    unwrap(api.PUT('/api/v2/administrators/attributes/{definitionId}', { params: { path: { definitionId: d.id } }, body: { name: d.name, order } })),
  remove: (d) => unwrap(api.DELETE('/api/v2/administrators/attributes/{definitionId}', { params: { path: { definitionId: d.id } } })),
  details: { label: 'Default', render: (d) => `${d.default_value ?? '—'}${d.required ? ' (required)' : ''}` },
  Editor: AdminAttributeEditor,
};

/** Attribute definitions of subscribers or of administrators: order, type, and what the kind adds. */
export default function Attributes({ of }: { of: 'subscriber' | 'administrator' }) {
  return of === 'administrator' ? <Definitions key={of} kind={ADMINISTRATOR} /> : <Definitions key={of} kind={SUBSCRIBER} />;
}

function Definitions<D extends Definition>({ kind }: { kind: Kind<D> }) {
  const [editing, setEditing] = useState<D | 'new' | null>(null);
  const [deleting, setDeleting] = useState<D | null>(null);
  const [notice, setNotice] = useState<SavedNotice | null>(null);
  const defs = useApi(kind.load, [kind]);
  const ordered = [...(defs.data ?? [])].sort((a, b) => (a.list_order ?? 0) - (b.list_order ?? 0) || a.id - b.id);

  const move = async (index: number, by: -1 | 1) => {
    const next = [...ordered];
    const [item] = next.splice(index, 1);
    next.splice(index + by, 0, item!);
    // Orders are rewritten 1..n so a move is always visible, whatever orders were stored.
    for (const [i, d] of next.entries()) if (d.list_order !== i + 1) await kind.setOrder(d, i + 1);
    defs.reload();
  };
  const { Editor } = kind;

  return (
    <>
      <PageHeader title={kind.title}>
        <button type="button" className="button primary" onClick={() => setEditing('new')}>
          New attribute
        </button>
      </PageHeader>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <Loaded
        state={defs}
        isEmpty={(d) => d.length === 0}
        empty={
          <Empty title="No attributes yet">
            <p>{kind.intro}</p>
          </Empty>
        }
      >
        {() => (
          <DataTable
            columns={[
              { label: 'Order' },
              { label: 'Name' },
              { label: 'Type', hideNarrow: true },
              { label: kind.details.label, hideNarrow: true },
              { label: 'Actions', hiddenLabel: true },
            ]}
          >
            {ordered.map((d, i) => (
              <tr key={d.id}>
                <td className="nowrap">
                  <button
                    type="button"
                    className="button subtle"
                    aria-label={`Move ${d.name} up`}
                    disabled={i === 0}
                    onClick={() => void move(i, -1)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="button subtle"
                    aria-label={`Move ${d.name} down`}
                    disabled={i === ordered.length - 1}
                    onClick={() => void move(i, 1)}
                  >
                    ↓
                  </button>
                </td>
                {/* On a phone the type column is hidden and the type shows under the name (styles.css, data-narrow). */}
                <td data-narrow={d.type ?? undefined}>{d.name}</td>
                <td className="hide-narrow">{d.type}</td>
                <td className="hide-narrow muted">{kind.details.render(d)}</td>
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
          </DataTable>
        )}
      </Loaded>
      {editing && (
        <Editor
          definition={editing === 'new' ? null : editing}
          nextOrder={ordered.length + 1}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setNotice(saved);
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
          await kind.remove(deleting!);
          defs.reload();
        }}
      >
        <p>{kind.deleteText}</p>
      </ConfirmDialog>
    </>
  );
}
