import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { AdminAttributeDefinition } from '../api/types';
import { FormDialog } from '../ui/FormDialog';
import { useAction } from '../ui/kit';
import { ADMIN_HELP, FieldError, OptionCheckbox } from './AttributeOptions';
import { NameAndType, type EditorProps } from './DefinitionFields';

/** The types the API accepts for an administrator attribute (a stored legacy type is shown as it is). */
const ADMIN_TYPES = ['textline', 'hidden'];

/** Name, type, default value and whether a value is required, of an administrator attribute. */
export function AdminAttributeEditor(props: EditorProps<AdminAttributeDefinition>) {
  const d = props.definition;
  const [name, setName] = useState(d?.name ?? '');
  const [type, setType] = useState(d?.type ?? 'textline');
  const [defaultValue, setDefaultValue] = useState(d?.default_value ?? '');
  const [required, setRequired] = useState(d?.required ?? false);
  const action = useAction();
  const types = d?.type && !ADMIN_TYPES.includes(d.type) ? [d.type, ...ADMIN_TYPES] : ADMIN_TYPES;

  const submit = async () => {
    const ok = await action.run(async () => {
      // An empty default means none; a legacy type is sent only when the administrator picked another one.
      const body = {
        name,
        default_value: defaultValue === '' ? null : defaultValue,
        required,
        ...(type !== d?.type ? { type: type as 'textline' | 'hidden' } : {}),
      };
      if (d) await unwrap(api.PUT('/api/v2/administrators/attributes/{definitionId}', { params: { path: { definitionId: d.id } }, body }));
      else await unwrap(api.POST('/api/v2/administrators/attributes', { body: { ...body, order: props.nextOrder } }));
    });
    if (!ok) return;
    props.onSaved({ kind: 'success', text: `“${name}” saved.` });
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
      error={action.fields.default_value ? null : action.error}
    >
      <NameAndType name={name} setName={setName} type={type} setType={setType} types={types} />
      <OptionCheckbox label="Required" help={ADMIN_HELP.required} checked={required} onChange={setRequired} />
      <div className="option-field">
        <label>
          Default value
          <input
            value={defaultValue}
            aria-describedby={action.fields.default_value ? 'admin-default-error admin-default-help' : 'admin-default-help'}
            aria-invalid={action.fields.default_value ? true : undefined}
            onChange={(e) => setDefaultValue(e.target.value)}
          />
        </label>
        <FieldError id="admin-default-error" messages={action.fields.default_value} />
        <span id="admin-default-help" className="muted small">
          {ADMIN_HELP.default}
        </span>
      </div>
    </FormDialog>
  );
}
