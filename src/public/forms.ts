import { escapeHtml } from '../shared/html.js';

/*
 * Form controls of the public pages, each with its label, its error message beside it (between label and control,
 * tied by aria-describedby so a screen reader reads it with the control) and the visitor's input kept. Every text
 * argument is plain text: these functions escape it.
 */

export interface FieldCommon {
  /** The element id (unique on the page); errors get `<id>-error`. */
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly error?: string | null;
  readonly required?: boolean;
  /** The word shown beside a required field's label (from the page's catalogue: "required"). */
  readonly requiredText?: string;
  readonly hint?: string | null;
}

const attr = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined ? '' : ` ${name}="${escapeHtml(String(value))}"`;

function labelText(field: FieldCommon): string {
  const mark = field.required && field.requiredText ? ` <span class="req">(${escapeHtml(field.requiredText)})</span>` : '';
  return `${escapeHtml(field.label)}${mark}`;
}

function describedBy(field: FieldCommon): string {
  const ids = [field.error ? `${field.id}-error` : null, field.hint ? `${field.id}-hint` : null].filter(Boolean);
  return ids.length > 0 ? ` aria-describedby="${ids.join(' ')}"` : '';
}

function notes(field: FieldCommon): string {
  return (
    (field.hint ? `<p class="hint" id="${field.id}-hint">${escapeHtml(field.hint)}</p>` : '') +
    (field.error ? `<p class="error" id="${field.id}-error">${escapeHtml(field.error)}</p>` : '')
  );
}

const invalid = (field: FieldCommon) => (field.error ? ' aria-invalid="true"' : '');
const required = (field: FieldCommon) => (field.required ? ' aria-required="true"' : '');

export interface InputField extends FieldCommon {
  readonly type?: 'text' | 'email' | 'date' | 'number';
  readonly value?: string | null;
  readonly autocomplete?: string;
  readonly maxLength?: number;
}

export function inputField(field: InputField): string {
  return (
    `<div class="field"><label for="${field.id}">${labelText(field)}</label>${notes(field)}` +
    `<input type="${field.type ?? 'text'}" id="${field.id}" name="${escapeHtml(field.name)}"` +
    `${attr('value', field.value ?? '')}${attr('autocomplete', field.autocomplete)}${attr('maxlength', field.maxLength)}` +
    `${field.type === 'email' ? ' spellcheck="false" autocapitalize="off"' : ''}` +
    `${required(field)}${invalid(field)}${describedBy(field)}></div>`
  );
}

export function textareaField(field: FieldCommon & { value?: string | null; maxLength?: number }): string {
  return (
    `<div class="field"><label for="${field.id}">${labelText(field)}</label>${notes(field)}` +
    `<textarea id="${field.id}" name="${escapeHtml(field.name)}"${attr('maxlength', field.maxLength)}` +
    `${required(field)}${invalid(field)}${describedBy(field)}>${escapeHtml(field.value ?? '')}</textarea></div>`
  );
}

export interface Choice {
  readonly value: string;
  readonly label: string;
  /** A second, quieter line (a list's description). */
  readonly description?: string | null;
}

export function selectField(field: FieldCommon & { choices: readonly Choice[]; value?: string | null; emptyLabel?: string }): string {
  const options =
    `<option value="">${escapeHtml(field.emptyLabel ?? '')}</option>` +
    field.choices
      .map((c) => `<option value="${escapeHtml(c.value)}"${c.value === field.value ? ' selected' : ''}>${escapeHtml(c.label)}</option>`)
      .join('');
  return (
    `<div class="field"><label for="${field.id}">${labelText(field)}</label>${notes(field)}` +
    `<select id="${field.id}" name="${escapeHtml(field.name)}"${required(field)}${invalid(field)}${describedBy(field)}>` +
    `${options}</select></div>`
  );
}

/** One checkbox with its label to the right (a yes/no attribute, a single list). */
export function checkboxField(field: FieldCommon & { checked?: boolean; value?: string }): string {
  return (
    `<div class="field">${notes(field)}<div class="choice">` +
    `<input type="checkbox" id="${field.id}" name="${escapeHtml(field.name)}" value="${escapeHtml(field.value ?? '1')}"` +
    `${field.checked ? ' checked' : ''}${required(field)}${invalid(field)}${describedBy(field)}>` +
    `<label for="${field.id}">${labelText(field)}</label></div></div>`
  );
}

/** Radio buttons or checkboxes in a fieldset whose legend is the label; `values` are the ones checked. */
export function choiceGroup(field: FieldCommon & { kind: 'radio' | 'checkbox'; choices: readonly Choice[]; values?: readonly string[] }): string {
  const checked = new Set(field.values ?? []);
  const items = field.choices
    .map((choice, i) => {
      const id = `${field.id}-${i}`;
      const desc = choice.description ? `<span class="desc">${escapeHtml(choice.description)}</span>` : '';
      return (
        `<div class="choice"><input type="${field.kind}" id="${id}" name="${escapeHtml(field.name)}" value="${escapeHtml(choice.value)}"` +
        `${checked.has(choice.value) ? ' checked' : ''}${invalid(field)}>` +
        `<label for="${id}">${escapeHtml(choice.label)}${desc}</label></div>`
      );
    })
    .join('');
  return (
    // A fieldset takes no aria-required: its legend says "(required)".
    `<fieldset id="${field.id}"${describedBy(field)}>` + `<legend>${labelText(field)}</legend>${notes(field)}${items}</fieldset>`
  );
}

export function hiddenField(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

/**
 * The honeypot: a text field people never see (off-screen, out of the tab order, hidden from assistive
 * technology, autocomplete off) and form-filling robots fill.
 */
export function honeypotField(name: string, label: string, options: { inlineStyle?: boolean } = {}): string {
  // On another site (the embed snippet) the class means nothing, so the snippet carries its own style attribute.
  const style = options.inlineStyle ? ' style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden"' : '';
  return (
    `<div class="hp"${style} aria-hidden="true"><label for="hp-${escapeHtml(name)}">${escapeHtml(label)}</label>` +
    `<input type="text" id="hp-${escapeHtml(name)}" name="${escapeHtml(name)}" value="" tabindex="-1" autocomplete="off"></div>`
  );
}

/** The box above a form that failed: a heading and a link to each field in error. */
export function errorSummary(title: string, errors: readonly { id: string; message: string }[]): string {
  if (errors.length === 0) return '';
  const items = errors.map((e) => `<li><a href="#${escapeHtml(e.id)}">${escapeHtml(e.message)}</a></li>`).join('');
  return `<div class="notice error-summary" role="alert"><h2>${escapeHtml(title)}</h2><ul>${items}</ul></div>`;
}

export function submitButton(text: string): string {
  return `<div class="actions"><button type="submit">${escapeHtml(text)}</button></div>`;
}

/**
 * A form body (`application/x-www-form-urlencoded`) as name → values, every value kept in order (checkbox groups
 * send a name once per box). Names and values are bounded so a huge body cannot make a huge object.
 */
export function readFormBody(body: string, limits = { fields: 200 }): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let count = 0;
  for (const [name, value] of new URLSearchParams(body)) {
    if (++count > limits.fields) break;
    const values = out.get(name);
    if (values) values.push(value);
    else out.set(name, [value]);
  }
  return out;
}
