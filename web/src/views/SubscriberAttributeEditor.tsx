import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { AttributeDefinition } from '../api/types';
import { FormDialog } from '../ui/FormDialog';
import { useAction } from '../ui/kit';
import { NameAndType, type EditorProps } from './DefinitionFields';

export const TYPES = ['textline', 'textarea', 'checkbox', 'select', 'radio', 'checkboxgroup', 'date', 'hidden', 'creditcardno'] as const;
/** Types whose values are options; a type changes only within its family (docs/api.md). */
const OPTION_TYPES = new Set(['select', 'radio', 'checkboxgroup', 'checkbox']);
const MULTI = new Set(['select', 'radio', 'checkboxgroup']);

interface DraftOption {
  id: number | null;
  name: string;
}

/** Name, type and (for the multi-valued types) the ordered options of a subscriber attribute. */
export function SubscriberAttributeEditor(props: EditorProps<AttributeDefinition>) {
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
  const submit = async () => {
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
        ? {
            kind: 'info',
            text: `Saved. ${kept.map((k) => `“${k}”`).join(', ')} ${kept.length === 1 ? 'is' : 'are'} still chosen by subscribers, so ${kept.length === 1 ? 'it was' : 'they were'} kept: change those subscribers' values first.`,
          }
        : { kind: 'success', text: `“${name}” saved.` },
    );
    props.onClose();
  };
  return (
    <FormDialog
      title={d ? `Edit “${d.name}”` : 'New attribute'}
      open
      onClose={props.onClose}
      onSubmit={submit}
      submitLabel="Save"
      busy={action.busy}
      error={action.error}
    >
      <NameAndType name={name} setName={setName} type={type} setType={setType} types={allowedTypes} />
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
                <button
                  type="button"
                  className="button subtle"
                  aria-label={`Move ${o.name} down`}
                  disabled={i === options.length - 1}
                  onClick={() => moveOption(i, 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="button subtle"
                  aria-label={`Remove ${o.name}`}
                  onClick={() => setOptions(options.filter((_, j) => j !== i))}
                >
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
    </FormDialog>
  );
}
