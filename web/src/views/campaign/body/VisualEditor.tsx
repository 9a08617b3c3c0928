import { useCallback, useImperativeHandle, useRef, useState, type Ref } from 'react';
import {
  BLOCK_LABELS,
  newBlock,
  newId,
  parseDocument,
  renderDocument,
  starterDocument,
  type Align,
  type Block,
  type BlockDocument,
  type BlockType,
} from './blocks';
import type { BodyEditorHandle } from './handle';

/*
 * The visual format: the email as a column of blocks, each edited in place with ordinary fields (so every part is
 * reachable and operable with the keyboard: no drag and drop is needed, blocks move with their Up and Down buttons).
 * Each change renders the document (blocks.ts) to the HTML that is sent.
 */

export type PickImage = () => Promise<{ url: string; alt?: string } | null>;

interface Props {
  source: string;
  onChange: (source: string, html: string) => void;
  readOnly: boolean;
  /** Offered on image blocks when given: the media library's picker (wired by the campaign view). */
  pickImage?: PickImage;
  ref?: Ref<BodyEditorHandle>;
}

/** Where a block sits: the layout's list, or one column of a columns block. */
type Parent = { column: null } | { column: { id: string; index: number } };

const TOP_TYPES: BlockType[] = ['Heading', 'Text', 'Button', 'Image', 'ColumnsContainer', 'Divider', 'Spacer', 'Html'];
const COLUMN_TYPES = TOP_TYPES.filter((t) => t !== 'ColumnsContainer');

function childrenOf(doc: BlockDocument, parent: Parent): string[] {
  if (parent.column === null) return doc.root.data.childrenIds;
  const block = doc[parent.column.id];
  return block?.type === 'ColumnsContainer' ? (block.data.props.columns[parent.column.index]?.childrenIds ?? []) : [];
}

function withChildren(doc: BlockDocument, parent: Parent, ids: string[]): BlockDocument {
  if (parent.column === null) return { ...doc, root: { ...doc.root, data: { ...doc.root.data, childrenIds: ids } } };
  const { id, index } = parent.column;
  const block = doc[id];
  if (block?.type !== 'ColumnsContainer') return doc;
  const columns = block.data.props.columns.map((c, i) => (i === index ? { childrenIds: ids } : c));
  return { ...doc, [id]: { ...block, data: { ...block.data, props: { ...block.data.props, columns } } } };
}

export default function VisualEditor({ source, onChange, readOnly, pickImage, ref }: Props) {
  const [doc, setDoc] = useState<BlockDocument>(() => parseDocument(source) ?? starterDocument());
  /** The text field last focused, for placeholders: which block and property, and the element (for its caret). */
  const lastField = useRef<{ id: string; key: string; element: HTMLInputElement | HTMLTextAreaElement } | null>(null);

  const change = useCallback(
    (next: BlockDocument) => {
      setDoc(next);
      onChange(JSON.stringify(next), renderDocument(next));
    },
    [onChange],
  );

  const update = (id: string, fn: (block: Block) => Block) => {
    const block = doc[id];
    if (!block || block.type === 'EmailLayout') return;
    change({ ...doc, [id]: fn(block) });
  };
  const setProp = (id: string, key: string, value: unknown) =>
    update(id, (b) => ({ ...b, data: { ...b.data, props: { ...b.data.props, [key]: value } } }) as Block);
  const setStyle = (id: string, key: string, value: unknown) =>
    update(id, (b) => ({ ...b, data: { ...b.data, style: { ...b.data.style, [key]: value } } }) as Block);

  const add = (parent: Parent, type: BlockType) => {
    const id = newId();
    change(withChildren({ ...doc, [id]: newBlock(type) }, parent, [...childrenOf(doc, parent), id]));
  };
  const remove = (parent: Parent, id: string) => {
    const next = withChildren(
      doc,
      parent,
      childrenOf(doc, parent).filter((c) => c !== id),
    );
    const block = doc[id];
    const gone = [id, ...(block?.type === 'ColumnsContainer' ? block.data.props.columns.flatMap((c) => c.childrenIds) : [])];
    for (const g of gone) delete next[g];
    change(next);
  };
  const move = (parent: Parent, id: string, by: -1 | 1) => {
    const ids = [...childrenOf(doc, parent)];
    const at = ids.indexOf(id);
    const to = at + by;
    if (at < 0 || to < 0 || to >= ids.length) return;
    [ids[at], ids[to]] = [ids[to]!, ids[at]!];
    change(withChildren(doc, parent, ids));
  };

  useImperativeHandle(
    ref,
    () => ({
      insert(text: string) {
        const field = lastField.current;
        if (!field || !field.element.isConnected) return void window.alert('Click into a text field of a block first, then insert the placeholder.');
        const { element } = field;
        const start = element.selectionStart ?? element.value.length;
        const end = element.selectionEnd ?? start;
        setProp(field.id, field.key, element.value.slice(0, start) + text + element.value.slice(end));
        requestAnimationFrame(() => {
          element.focus();
          element.setSelectionRange(start + text.length, start + text.length);
        });
      },
    }),
    // setProp closes over the current document.
    [doc],
  );

  const track = (id: string, key: string) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
    lastField.current = { id, key, element: e.currentTarget };
  };

  const renderList = (parent: Parent, types: BlockType[]) => {
    const ids = childrenOf(doc, parent);
    return (
      <div className="block-list">
        {ids.length === 0 && <p className="muted small">No blocks here yet.</p>}
        <ol className="plain stack">
          {ids.map((id, i) => {
            const block = doc[id];
            if (!block || block.type === 'EmailLayout') return null;
            const name = `${BLOCK_LABELS[block.type]} ${i + 1}`;
            return (
              <li key={id} className="block-card" data-block={block.type}>
                <div className="block-head">
                  <strong>{name}</strong>
                  {!readOnly && (
                    <span className="block-actions">
                      <button
                        type="button"
                        className="button small-button"
                        aria-label={`Move ${name} up`}
                        disabled={i === 0}
                        onClick={() => move(parent, id, -1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        className="button small-button"
                        aria-label={`Move ${name} down`}
                        disabled={i === ids.length - 1}
                        onClick={() => move(parent, id, 1)}
                      >
                        ↓
                      </button>
                      <button type="button" className="button small-button" aria-label={`Remove ${name}`} onClick={() => remove(parent, id)}>
                        Remove
                      </button>
                    </span>
                  )}
                </div>
                {renderFields(id, block)}
              </li>
            );
          })}
        </ol>
        {!readOnly && (
          <AddBlock types={types} onAdd={(type) => add(parent, type)} where={parent.column ? `column ${parent.column.index + 1}` : 'the end'} />
        )}
      </div>
    );
  };

  const alignField = (id: string, block: Block) => (
    <label>
      Alignment
      <select value={block.data.style?.textAlign ?? 'left'} disabled={readOnly} onChange={(e) => setStyle(id, 'textAlign', e.target.value as Align)}>
        <option value="left">Left</option>
        <option value="center">Centre</option>
        <option value="right">Right</option>
      </select>
    </label>
  );

  /** A block's one-line text property: the field placeholders go into (tracked) when the editor inserts one. */
  const textField = (id: string, label: string, key: string, value: string, grow = false, clearToNull = false) => (
    <label className={grow ? 'grow' : undefined}>
      {label}
      <input
        value={value}
        readOnly={readOnly}
        onFocus={track(id, key)}
        onChange={(e) => setProp(id, key, clearToNull ? e.target.value || null : e.target.value)}
      />
    </label>
  );

  const renderFields = (id: string, block: Block) => {
    switch (block.type) {
      case 'Heading':
        return (
          <div className="row">
            {textField(id, 'Heading text', 'text', block.data.props.text, true)}
            <label>
              Size
              <select value={block.data.props.level} disabled={readOnly} onChange={(e) => setProp(id, 'level', e.target.value)}>
                <option value="h1">Large</option>
                <option value="h2">Medium</option>
                <option value="h3">Small</option>
              </select>
            </label>
            {alignField(id, block)}
          </div>
        );
      case 'Text':
        return (
          <div className="stack">
            <label>
              Text (**bold**, *italic*, [link](https://…))
              <textarea
                rows={4}
                value={block.data.props.text}
                readOnly={readOnly}
                onFocus={track(id, 'text')}
                onChange={(e) => setProp(id, 'text', e.target.value)}
              />
            </label>
            <div className="row">{alignField(id, block)}</div>
          </div>
        );
      case 'Button':
        return (
          <div className="row">
            {textField(id, 'Button text', 'text', block.data.props.text)}
            {textField(id, 'Link address', 'url', block.data.props.url, true)}
            <label>
              Colour
              <input
                type="color"
                value={block.data.props.buttonBackgroundColor ?? '#2450c8'}
                disabled={readOnly}
                onChange={(e) => setProp(id, 'buttonBackgroundColor', e.target.value)}
              />
            </label>
            {alignField(id, block)}
          </div>
        );
      case 'Image':
        return (
          <div className="row">
            {textField(id, 'Image address', 'url', block.data.props.url, true)}
            {textField(id, 'Alternative text (what it shows)', 'alt', block.data.props.alt, true)}
            {textField(id, 'Link (optional)', 'linkHref', block.data.props.linkHref ?? '', true, true)}
            {pickImage && !readOnly && (
              <button
                type="button"
                className="button"
                onClick={() =>
                  void pickImage().then((picked) => {
                    if (picked)
                      update(id, (b) => ({ ...b, data: { ...b.data, props: { ...b.data.props, url: picked.url, alt: picked.alt ?? '' } } }) as Block);
                  })
                }
              >
                Choose image…
              </button>
            )}
          </div>
        );
      case 'Divider':
        return (
          <label className="inline">
            Line colour{' '}
            <input
              type="color"
              value={block.data.props.lineColor ?? '#d0d5dd'}
              disabled={readOnly}
              onChange={(e) => setProp(id, 'lineColor', e.target.value)}
            />
          </label>
        );
      case 'Spacer':
        return (
          <label>
            Height (pixels)
            <input
              type="number"
              min={4}
              max={400}
              value={block.data.props.height}
              readOnly={readOnly}
              onChange={(e) => setProp(id, 'height', Number(e.target.value))}
            />
          </label>
        );
      case 'Html':
        return (
          <label>
            HTML
            <textarea
              className="mono"
              rows={6}
              value={block.data.props.contents}
              readOnly={readOnly}
              onFocus={track(id, 'contents')}
              onChange={(e) => setProp(id, 'contents', e.target.value)}
            />
          </label>
        );
      case 'ColumnsContainer': {
        const count = block.data.props.columnsCount;
        return (
          <div className="stack">
            <label>
              Columns (side by side on wide screens, one under the other on phones)
              <select value={count} disabled={readOnly} onChange={(e) => setProp(id, 'columnsCount', Number(e.target.value))}>
                <option value={2}>2</option>
                <option value={3}>3</option>
              </select>
            </label>
            <div className={`block-columns n${count}`}>
              {block.data.props.columns.slice(0, count).map((_, index) => (
                <section key={index} className="block-column" aria-label={`Column ${index + 1}`}>
                  <h4>Column {index + 1}</h4>
                  {renderList({ column: { id, index } }, COLUMN_TYPES)}
                </section>
              ))}
            </div>
          </div>
        );
      }
    }
  };

  const layout = doc.root.data;
  return (
    <div className="visual-editor stack">
      <div className="row">
        <label className="inline">
          Background{' '}
          <input
            type="color"
            value={layout.backdropColor ?? '#f2f4f7'}
            disabled={readOnly}
            onChange={(e) => change({ ...doc, root: { ...doc.root, data: { ...layout, backdropColor: e.target.value } } })}
          />
        </label>
        <label className="inline">
          Page{' '}
          <input
            type="color"
            value={layout.canvasColor ?? '#ffffff'}
            disabled={readOnly}
            onChange={(e) => change({ ...doc, root: { ...doc.root, data: { ...layout, canvasColor: e.target.value } } })}
          />
        </label>
      </div>
      {renderList({ column: null }, TOP_TYPES)}
    </div>
  );
}

function AddBlock({ types, onAdd, where }: { types: BlockType[]; onAdd: (type: BlockType) => void; where: string }) {
  const [type, setType] = useState<BlockType>('Text');
  return (
    <div className="row add-block">
      <label>
        Add a block at {where}
        <select value={type} onChange={(e) => setType(e.target.value as BlockType)}>
          {types.map((t) => (
            <option key={t} value={t}>
              {BLOCK_LABELS[t]}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="button" onClick={() => onAdd(type)}>
        Add {BLOCK_LABELS[type].toLowerCase()}
      </button>
    </div>
  );
}
