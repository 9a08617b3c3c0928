import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { AttributeDefinition } from '../api/types';
import { FormDialog } from '../ui/FormDialog';
import { useAction } from '../ui/kit';
import { TYPES } from './attributeTypes';
import { DefaultValueField, FieldError, LEGACY, OptionCheckbox, optionNamedBy, SUBSCRIBER_HELP, type DraftOption } from './AttributeOptions';
import { NameAndType, type EditorProps } from './DefinitionFields';

/** Types whose values are options; a type changes only within its family (docs/api.md). */
const OPTION_TYPES = new Set(['select', 'radio', 'checkboxgroup', 'checkbox']);
const MULTI = new Set(['select', 'radio', 'checkboxgroup']);

let nextKey = 0;
const newKey = () => `new-${++nextKey}`;

/**
 * The stored default in the form's terms: option keys for the option types (the API stores a default as given, so
 * options are named by id or by name), `1`/`0` for a checkbox, a YYYY-MM-DD date, the text otherwise. A default the
 * control cannot show (an option that is not there, a checkbox word other than 1/0, a date in another form) is kept
 * as `legacy` and chosen as LEGACY, so that saving unchanged sends it back as it is.
 */
function draftDefault(d: AttributeDefinition | null, options: DraftOption[]) {
  const stored = d?.default_value ?? null;
  const none = { text: '', keys: [] as string[], legacy: null as string | null };
  if (stored === null || !d) return none;
  const type = d.type ?? 'textline';
  const legacy = { text: LEGACY, keys: [LEGACY], legacy: stored };
  if (type === 'checkbox') return ['1', '0'].includes(stored) ? { ...none, text: stored } : legacy;
  if (type === 'date') return /^\d{4}-\d{2}-\d{2}$/.test(stored) || stored === '' ? { ...none, text: stored } : legacy;
  if (!MULTI.has(type)) return { ...none, text: stored };
  if (stored.trim() === '') return none;
  const tokens = type === 'checkboxgroup' ? stored.split(',').filter((t) => t.trim() !== '') : [stored];
  const found = tokens.map((token) => optionNamedBy(options, token));
  if (found.some((o) => o === undefined)) return legacy;
  return { ...none, keys: [...new Set(found.map((o) => o!.key))] };
}

/** A checkboxgroup's default lists option names separated by commas: a name with a comma in it cannot be one of them. */
function commaProblem(type: string, chosen: DraftOption[]): string | null {
  const bad = type === 'checkboxgroup' ? chosen.filter((o) => o.name.includes(',')) : [];
  if (bad.length === 0) return null;
  const names = bad.map((o) => `“${o.name.trim()}”`).join(', ');
  return `${names} cannot be part of the default: a checkboxgroup's default lists option names separated by commas. Rename the option without a comma, or leave it unticked.`;
}

/** Name, type, the ordered options (multi-valued types), required, default and editable-by-subscribers of a subscriber attribute. */
export function SubscriberAttributeEditor(props: EditorProps<AttributeDefinition>) {
  const d = props.definition;
  const [name, setName] = useState(d?.name ?? '');
  const [type, setType] = useState(d?.type ?? 'textline');
  const [options, setOptions] = useState<DraftOption[]>(() =>
    [...(d?.options ?? [])].sort((a, b) => a.list_order - b.list_order).map((o) => ({ key: `option-${o.id}`, id: o.id, name: o.name })),
  );
  const [newOption, setNewOption] = useState('');
  const [required, setRequired] = useState(d?.required ?? false);
  const [editable, setEditable] = useState(d?.subscriber_editable ?? false);
  const [initialDefault] = useState(() => draftDefault(d, options));
  const [defaultText, setDefaultText] = useState(initialDefault.text);
  const [defaultKeys, setDefaultKeys] = useState(initialDefault.keys);
  const action = useAction();
  // An existing definition changes type only within its family.
  const allowedTypes = d ? TYPES.filter((t) => OPTION_TYPES.has(t) === OPTION_TYPES.has(d.type ?? 'textline')) : TYPES;

  // A message the API gave for a field shown here goes beside that field, not on top as well.
  const shownAtField = ['options', 'default_value'].some((f) => action.fields[f]);
  const moveOption = (i: number, by: -1 | 1) => {
    const next = [...options];
    const [o] = next.splice(i, 1);
    next.splice(i + by, 0, o!);
    setOptions(next);
  };
  /** The options ticked or chosen as the default (none while the stored default is kept as it is). */
  const chosenOptions = (): DraftOption[] => {
    const keys = type === 'checkboxgroup' ? defaultKeys : defaultKeys.slice(0, 1);
    return keys.flatMap((k) => options.filter((o) => o.key === k && o.name.trim() !== ''));
  };
  const defaultProblem = commaProblem(type, chosenOptions());
  /**
   * The default as the API stores it, read back by clients as sent: an option by its name (a new option has no id
   * yet), a checkboxgroup's names comma-joined, `1`/`0` for a checkbox, YYYY-MM-DD for a date; a kept one as it was.
   */
  const defaultValue = (): string | null => {
    if (MULTI.has(type)) {
      if (defaultKeys.includes(LEGACY)) return initialDefault.legacy;
      const names = chosenOptions().map((o) => o.name.trim());
      return names.length > 0 ? names.join(',') : null;
    }
    if (defaultText === LEGACY) return initialDefault.legacy;
    return defaultText === '' ? null : defaultText;
  };
  const submit = async () => {
    if (defaultProblem) return;
    let kept: string[] = [];
    const ok = await action.run(async () => {
      const body = {
        name,
        type,
        required,
        subscriber_editable: editable,
        default_value: defaultValue(),
        ...(MULTI.has(type) ? { options: options.map((o, i) => ({ ...(o.id !== null ? { id: o.id } : {}), name: o.name, list_order: i + 1 })) } : {}),
      };
      if (!d) {
        await unwrap(api.POST('/api/v2/attributes', { body: { ...body, order: props.nextOrder } }));
        return;
      }
      const saved = await unwrap(api.PUT('/api/v2/attributes/{definitionId}', { params: { path: { definitionId: d.id } }, body }));
      // The API keeps an option that some subscriber's value uses, even when it was left out. Options added here come
      // back with ids of their own: they are known by name.
      const wanted = new Set(options.flatMap((o) => (o.id !== null ? [o.id] : [])));
      const added = new Set(options.filter((o) => o.id === null).map((o) => o.name.trim()));
      kept = saved.options.filter((o) => !wanted.has(o.id) && !added.has(o.name.trim())).map((o) => o.name);
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
      error={shownAtField ? null : action.error}
    >
      <NameAndType name={name} setName={setName} type={type} setType={setType} types={allowedTypes} />
      {MULTI.has(type) && (
        <fieldset>
          <legend>Options</legend>
          <FieldError id="attribute-options-error" messages={action.fields.options} />
          <ul className="plain">
            {options.map((o, i) => (
              <li key={o.key} className="option-row">
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
                setOptions([...options, { key: newKey(), id: null, name: newOption.trim() }]);
                setNewOption('');
              }}
            >
              Add option
            </button>
          </div>
        </fieldset>
      )}
      <OptionCheckbox label="Required on sign-up forms" help={SUBSCRIBER_HELP.required} checked={required} onChange={setRequired} />
      <DefaultValueField
        type={type}
        options={options.filter((o) => o.name.trim() !== '')}
        text={defaultText}
        setText={setDefaultText}
        keys={defaultKeys}
        setKeys={setDefaultKeys}
        legacy={initialDefault.legacy}
        errors={defaultProblem ? [defaultProblem] : action.fields.default_value}
      />
      <OptionCheckbox
        label="Subscribers may change it in the preference centre"
        help={SUBSCRIBER_HELP.editable}
        checked={editable}
        onChange={setEditable}
      />
    </FormDialog>
  );
}
