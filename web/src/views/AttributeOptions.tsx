import { useId, type ReactNode } from 'react';
import './templates.css';

/*
 * The options of an attribute definition beside its name and type: required, default value, editable by subscribers.
 * The help texts say where each takes effect; each was checked in the code named beside it, keep them true.
 */

/** An option of the definition being edited: `key` stays the same while its name is edited, so a default follows it. */
export interface DraftOption {
  key: string;
  id: number | null;
  name: string;
}

/** The API's messages for one field, under it; `id` is what the control's aria-describedby names. */
export function FieldError({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <span id={id} className="field-error" role="alert">
      {messages.join(' ')}
    </span>
  );
}

/** A checkbox with a line of help under it, saying where the option takes effect. */
export function OptionCheckbox(props: { label: string; help: ReactNode; checked: boolean; onChange: (checked: boolean) => void }) {
  const helpId = useId();
  return (
    <div className="option-field">
      <label className="inline">
        <input type="checkbox" checked={props.checked} aria-describedby={helpId} onChange={(e) => props.onChange(e.target.checked)} /> {props.label}
      </label>
      <span id={helpId} className="muted small">
        {props.help}
      </span>
    </div>
  );
}

/** Where a subscriber attribute's options act (public/signup.*, public/preferences.*, subscription/attribute.service). */
export const SUBSCRIBER_HELP = {
  required:
    'Sign-up forms refuse a sign-up without it and, when subscribers may change it, so does the preference centre. Imports and this console do not ask for it.',
  default:
    'Pre-filled on sign-up forms (hidden attributes are not on them), and stored when a value is set through the API without one. Existing subscribers and imports are not changed.',
  editable: 'Shown on the preference-centre page linked from every mail, where subscribers can change their value.',
};

/** Where an administrator attribute's options act (identity/admin-attribute.service, views/AdminAttributeValues). */
export const ADMIN_HELP = {
  required: 'The administrator dialog asks for a value unless there is a default. The API does not enforce it.',
  default: "Answered as the administrator's value while none is stored, and stored when a value is set without one.",
};

/**
 * The default of a subscriber attribute, in the control its type uses: text, several lines, a date, one of the options,
 * any of the options (checkboxgroup), or ticked / not ticked. `value` is the text for text types, option keys for
 * option types, `1`/`0` for a checkbox; `legacy` is a stored default the control cannot show (the API stores a default
 * as given, as phpList does), offered as it is — the LEGACY key or text — so that saving unchanged keeps it.
 */
export function DefaultValueField(props: {
  type: string;
  options: DraftOption[];
  text: string;
  setText: (text: string) => void;
  keys: string[];
  setKeys: (keys: string[]) => void;
  legacy: string | null;
  errors: string[] | undefined;
}) {
  const helpId = useId();
  const errorId = useId();
  const describedBy = props.errors ? `${errorId} ${helpId}` : helpId;
  const invalid = props.errors ? true : undefined;
  const help = (
    <span id={helpId} className="muted small">
      {SUBSCRIBER_HELP.default}
    </span>
  );
  const error = <FieldError id={errorId} messages={props.errors} />;
  const keepLabel = `Keep “${props.legacy}” (as stored)`;
  const legacyChoice = props.legacy !== null && <option value={LEGACY}>{keepLabel}</option>;
  // Outside a select the stored default is a box of its own, ticked while it is kept.
  const keepBox = (checked: boolean, onChange: (checked: boolean) => void) =>
    props.legacy !== null && (
      <label className="inline">
        <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} /> {keepLabel}
      </label>
    );

  if (props.type === 'checkboxgroup') {
    return (
      <fieldset aria-describedby={describedBy}>
        <legend>Default value</legend>
        {props.options.length === 0 && <p className="muted small">Add options first.</p>}
        {props.options.map((o) => (
          <label key={o.key} className="inline">
            <input
              type="checkbox"
              checked={props.keys.includes(o.key)}
              onChange={(e) =>
                props.setKeys(e.target.checked ? [...props.keys.filter((k) => k !== LEGACY), o.key] : props.keys.filter((k) => k !== o.key))
              }
            />{' '}
            {o.name || '(unnamed option)'}
          </label>
        ))}
        {keepBox(props.keys.includes(LEGACY), (checked) => props.setKeys(checked ? [LEGACY] : []))}
        {error}
        {help}
      </fieldset>
    );
  }
  if (props.type === 'select' || props.type === 'radio') {
    return (
      <div className="option-field">
        <label>
          Default value
          <select
            value={props.keys[0] ?? ''}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            onChange={(e) => props.setKeys(e.target.value ? [e.target.value] : [])}
          >
            <option value="">No default</option>
            {props.options.map((o) => (
              <option key={o.key} value={o.key}>
                {o.name || '(unnamed option)'}
              </option>
            ))}
            {legacyChoice}
          </select>
        </label>
        {error}
        {help}
      </div>
    );
  }
  if (props.type === 'checkbox') {
    return (
      <div className="option-field">
        <label>
          Default value
          <select value={props.text} aria-describedby={describedBy} aria-invalid={invalid} onChange={(e) => props.setText(e.target.value)}>
            <option value="">No default</option>
            <option value="1">Ticked</option>
            <option value="0">Not ticked</option>
            {legacyChoice}
          </select>
        </label>
        {error}
        {help}
      </div>
    );
  }
  const common = {
    value: props.text === LEGACY ? '' : props.text,
    'aria-describedby': describedBy,
    'aria-invalid': invalid,
  };
  return (
    <div className="option-field">
      <label>
        Default value
        {props.type === 'textarea' ? (
          <textarea rows={3} {...common} onChange={(e) => props.setText(e.target.value)} />
        ) : (
          <input type={props.type === 'date' ? 'date' : 'text'} {...common} onChange={(e) => props.setText(e.target.value)} />
        )}
      </label>
      {keepBox(props.text === LEGACY, (checked) => props.setText(checked ? LEGACY : ''))}
      {error}
      {help}
    </div>
  );
}

/** The key or text standing for a stored default the control cannot show. */
export const LEGACY = '__stored__';

/**
 * The option a default names, by id or else by name (trimmed, case-insensitive), as the sign-up forms read it
 * (src/subscription/attribute-default.ts).
 */
export function optionNamedBy<O extends { id: number | null; name: string }>(options: readonly O[], token: string): O | undefined {
  const text = token.trim();
  const byId = /^\d+$/.test(text) ? options.find((o) => o.id === Number(text)) : undefined;
  return byId ?? options.find((o) => o.name.toLowerCase() === text.toLowerCase());
}
