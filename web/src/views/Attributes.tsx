import { useState, type ComponentType, type ReactNode } from 'react';
import { api, unwrap } from '../api/client';
import type { AdminAttributeDefinition, AttributeDefinition } from '../api/types';
import { useApi } from '../api/useApi';
import { DataTable, Loaded } from '../ui/data';
import { ConfirmDialog, Empty, Notice, PageHeader } from '../ui/kit';
import { AdminAttributeEditor } from './AdminAttributeEditor';
import { typeLabel } from './attributeTypes';
import { optionNamedBy } from './AttributeOptions';
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
  /** The wide-screen columns after Type. */
  details: { label: string; render: (d: D) => ReactNode }[];
  /** Shown under the name at every width: the options that are switched on. */
  badges: (d: D) => string[];
  /** The default in words, or null; on a phone it shows under the name, where the Default column is hidden. */
  defaultText: (d: D) => string | null;
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
  details: [
    // As the API derives it (the campaign renderer's rules): one derivation, not re-done here.
    { label: 'Placeholder', render: (d) => (d.placeholder ? <code>{d.placeholder}</code> : '—') },
    {
      label: 'Options',
      render: (d) =>
        [...d.options]
          .sort((a, b) => a.list_order - b.list_order)
          .map((o) => o.name)
          .join(', ') || '—',
    },
    { label: 'Default', render: (d) => subscriberDefault(d) ?? '—' },
  ],
  badges: (d) => [...(d.required ? ['Required'] : []), ...(d.subscriber_editable ? ['Editable by subscribers'] : [])],
  defaultText: subscriberDefault,
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
  details: [{ label: 'Default', render: (d) => d.default_value ?? '—' }],
  badges: (d) => (d.required ? ['Required'] : []),
  defaultText: (d) => d.default_value,
  Editor: AdminAttributeEditor,
};

/**
 * A subscriber attribute's default as people read it: option names (the API stores a default as given, by option id
 * or name), ticked or not for a checkbox; what names no option is shown as it is.
 */
function subscriberDefault(d: AttributeDefinition): string | null {
  const stored = d.default_value;
  if (stored === null) return null;
  if (d.type === 'checkbox') return stored === '1' ? 'Ticked' : stored === '0' ? 'Not ticked' : stored;
  if (d.type !== 'select' && d.type !== 'radio' && d.type !== 'checkboxgroup') return stored === '' ? '(empty)' : stored;
  const tokens = d.type === 'checkboxgroup' ? stored.split(',').filter((t) => t.trim() !== '') : [stored];
  return tokens.map((token) => optionNamedBy(d.options, token)?.name ?? token.trim()).join(', ');
}

/** Attribute definitions of subscribers or of administrators: order, type, and what the kind adds. */
export default function Attributes({ of }: { of: 'subscriber' | 'administrator' }) {
  return of === 'administrator' ? <Definitions key={of} kind={ADMINISTRATOR} /> : <Definitions key={of} kind={SUBSCRIBER} />;
}

function narrowText(type: string | null, defaultText: string | null): string | undefined {
  const parts = [...(type ? [typeLabel(type)] : []), ...(defaultText !== null ? [`Default: ${defaultText}`] : [])];
  return parts.length > 0 ? parts.join(' · ') : undefined;
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
              ...kind.details.map((c) => ({ label: c.label, hideNarrow: true })),
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
                {/* On a phone the type and default columns are hidden and show under the name (styles.css, data-narrow). */}
                <td data-narrow={narrowText(d.type, kind.defaultText(d))}>
                  {d.name}
                  {kind.badges(d).length > 0 && (
                    <span className="badges">
                      {kind.badges(d).map((b) => (
                        <span key={b} className="badge">
                          {b}
                        </span>
                      ))}
                    </span>
                  )}
                </td>
                <td className="hide-narrow">{typeLabel(d.type)}</td>
                {kind.details.map((c) => (
                  <td key={c.label} className="hide-narrow muted">
                    {c.render(d)}
                  </td>
                ))}
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
