import type { AttributeDefinition } from '../api/types';

/**
 * The control for one attribute type. `value` is the stored string (option ids for the option types, `1`/`0` for
 * a checkbox, `YYYY-MM-DD` for a date); `onChange` answers the same form, which the API takes back as it is.
 */
export function AttributeField({ definition, value, onChange }: { definition: AttributeDefinition; value: string; onChange: (v: string) => void }) {
  const type = (definition.type ?? 'textline').toLowerCase();
  const id = `attr-${definition.id}`;
  const options = [...definition.options].sort((a, b) => a.list_order - b.list_order);
  switch (type) {
    case 'textarea':
      return (
        <label htmlFor={id}>
          {definition.name}
          <textarea id={id} value={value} onChange={(e) => onChange(e.target.value)} />
        </label>
      );
    case 'checkbox':
      return (
        <label className="inline" htmlFor={id}>
          <input id={id} type="checkbox" checked={value === '1'} onChange={(e) => onChange(e.target.checked ? '1' : '0')} /> {definition.name}
        </label>
      );
    case 'select':
      return (
        <label htmlFor={id}>
          {definition.name}
          <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
            <option value="">—</option>
            {options.map((o) => (
              <option key={o.id} value={String(o.id)}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
      );
    case 'radio':
      return (
        <fieldset>
          <legend>{definition.name}</legend>
          {options.map((o) => (
            <label key={o.id} className="inline">
              <input type="radio" name={id} value={String(o.id)} checked={value === String(o.id)} onChange={() => onChange(String(o.id))} /> {o.name}
            </label>
          ))}
        </fieldset>
      );
    case 'checkboxgroup': {
      const chosen = new Set(value.split(',').filter(Boolean));
      const toggle = (optionId: string, on: boolean) => {
        const next = new Set(chosen);
        if (on) next.add(optionId);
        else next.delete(optionId);
        onChange(
          options
            .map((o) => String(o.id))
            .filter((x) => next.has(x))
            .join(','),
        );
      };
      return (
        <fieldset>
          <legend>{definition.name}</legend>
          {options.map((o) => (
            <label key={o.id} className="inline">
              <input type="checkbox" checked={chosen.has(String(o.id))} onChange={(e) => toggle(String(o.id), e.target.checked)} /> {o.name}
            </label>
          ))}
        </fieldset>
      );
    }
    case 'date':
      return (
        <label htmlFor={id}>
          {definition.name}
          <input id={id} type="date" value={value} onChange={(e) => onChange(e.target.value)} />
        </label>
      );
    case 'hidden':
      return (
        <label htmlFor={id}>
          {definition.name} <span className="muted">(hidden from subscribers)</span>
          <input id={id} value={value} onChange={(e) => onChange(e.target.value)} />
        </label>
      );
    default:
      return (
        <label htmlFor={id}>
          {definition.name}
          <input id={id} value={value} onChange={(e) => onChange(e.target.value)} />
        </label>
      );
  }
}
