import { checkSignUpValues, isEmail, type ValueProblem } from '../subscription/index.js';
import type { Translate } from '../shared/i18n.js';
import type { signup } from './messages/signup.js';
import type { SignupForm } from './signup.service.js';

/*
 * What a sign-up form posts, read and checked. Field names: `email`, `email_confirm` (pages with
 * `emaildoubleentry`), `list` (once per chosen list), `attr_<definition id>` (once per checked box of a
 * checkboxgroup), and the honeypot `website`. Values arrive as text or, for a repeated name, a list of texts.
 */

export const HONEYPOT = 'website';
export const attributeField = (definitionId: number) => `attr_${definitionId}`;

export type FormBody = Record<string, unknown>;

/** A field's values as texts; anything else a JSON body might carry (numbers, objects) reads as its text or nothing. */
const all = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).flatMap((v) =>
    typeof v === 'string' ? [v] : typeof v === 'number' || typeof v === 'boolean' ? [String(v)] : [],
  );
const first = (value: unknown): string => all(value)[0] ?? '';

export interface SignupInput {
  readonly email: string;
  readonly emailConfirm: string;
  readonly lists: readonly string[];
  /** Raw values by definition id (a checkboxgroup may have several). */
  readonly attributes: ReadonlyMap<number, readonly string[]>;
  readonly honeypot: string;
}

export function readSignupInput(form: SignupForm, body: FormBody): SignupInput {
  return {
    email: first(body.email).trim(),
    emailConfirm: first(body.email_confirm).trim(),
    lists: all(body.list),
    attributes: new Map(form.attributes.map((d) => [d.id, all(body[attributeField(d.id)])])),
    honeypot: first(body[HONEYPOT]),
  };
}

/** What a valid sign-up asks for. */
export interface CheckedSignup {
  readonly email: string;
  readonly listIds: readonly number[];
  readonly values: readonly { definitionId: number; value: string }[];
}

export type FieldErrors = Map<string, string>;

/** The form's words for what the sign-up's checks refuse (subscription/signup.check.ts, the API's checks too). */
const PROBLEM_MESSAGE = {
  required: 'errRequired',
  tooLong: 'errTooLong',
  date: 'errDate',
  choice: 'errChoice',
  oneLine: 'errOneLine',
} as const satisfies Record<ValueProblem, keyof typeof signup.en>;

/** Every field checked, each error keyed by its field's element id (see signup.pages.ts). */
export function checkSignup(
  form: SignupForm,
  input: SignupInput,
  t: Translate<typeof signup.en>,
): { ok: true; signup: CheckedSignup } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = new Map();
  if (input.email === '') errors.set('email', t('errRequired'));
  else if (!isEmail(input.email)) errors.set('email', t('errEmail'));
  if (form.emailTwice && !errors.has('email') && input.email.toLowerCase() !== input.emailConfirm.toLowerCase()) {
    errors.set('email_confirm', t('errEmailMismatch'));
  }

  // A page with one list shows no choice: that list is the sign-up's. Otherwise the boxes ticked, in the page's order
  // (an id the page does not offer is ignored).
  const picked = new Set(input.lists);
  const chosen = form.lists.filter((l) => form.lists.length === 1 || picked.has(String(l.id))).map((l) => l.id);

  const { values, problems } = checkSignUpValues(form.attributes, input.attributes);
  for (const [id, problem] of problems) errors.set(attributeField(id), t(PROBLEM_MESSAGE[problem]));
  // After the attributes: the messages are listed in the order the fields appear.
  if (chosen.length === 0) errors.set('lists', t('errLists'));
  if (errors.size > 0) return { ok: false, errors };
  return { ok: true, signup: { email: input.email, listIds: chosen, values } };
}
