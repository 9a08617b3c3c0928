import { escapeHtml } from '../shared/html.js';
import { defaultAsValue, type DefinitionWithOptions } from '../subscription/index.js';
import type { PublicPage } from './headers.js';
import { translator, type Lang, type Translate } from '../shared/i18n.js';
import {
  checkboxField,
  choiceGroup,
  errorSummary,
  honeypotField,
  inputField,
  selectField,
  submitButton,
  textareaField,
  type FieldCommon,
} from './forms.js';
import { messagePage, renderLayout } from './layout.js';
import { common } from './messages/common.js';
import { signup } from './messages/signup.js';
import { attributeField, HONEYPOT, type FieldErrors, type SignupInput } from './signup.form.js';
import type { SignupForm } from './signup.service.js';

/*
 * The HTML of the sign-up form, its thank-you page and its error pages. The page's own texts (title, `intro`,
 * `header`, `button`, `thankyoupage`, `footer`) are the administrators' words, shown as plain text (escaped, line
 * breaks kept); the rest comes from the catalogues.
 */

type T = Translate<typeof signup.en>;
const text = (value: string | null | undefined) => value?.trim() ?? '';

function attributeControl(d: DefinitionWithOptions, raw: readonly string[], error: string | undefined, t: T, required: string): string {
  const id = attributeField(d.id);
  const base: FieldCommon = { id, name: id, label: d.name, error, required: d.required, requiredText: required };
  // The default as given (an option by id or name, a checkbox word …) in the terms of the controls: ids, `1`/`0`.
  const value = raw[0] ?? defaultAsValue(d) ?? '';
  const choices = d.options.map((o) => ({ value: String(o.id), label: o.name }));
  switch ((d.type ?? 'textline').toLowerCase()) {
    case 'textarea':
      return textareaField({ ...base, value, maxLength: 65_535 });
    case 'date':
      return inputField({ ...base, type: 'date', value });
    case 'checkbox':
      return checkboxField({ ...base, checked: raw.length > 0 ? raw.some((v) => v !== '' && v !== '0') : value === '1' });
    case 'select':
      return selectField({ ...base, choices, value, emptyLabel: t('chooseOption') });
    case 'radio':
      return choiceGroup({ ...base, kind: 'radio', choices, values: [value] });
    case 'checkboxgroup':
      return choiceGroup({ ...base, kind: 'checkbox', choices, values: raw.length > 0 ? raw : value.split(',') });
    case 'hidden':
      return '';
    default:
      return inputField({ ...base, value, maxLength: 1000 });
  }
}

export interface FormState {
  readonly input?: SignupInput;
  readonly errors?: FieldErrors;
}

/** The fields of the form (e-mail, attributes, lists), with the state of a failed post. */
export function formFields(form: SignupForm, state: FormState = {}): string {
  const t = translator(signup, form.lang);
  const required = translator(common, form.lang)('required');
  const errors = state.errors ?? new Map<string, string>();
  const input = state.input;

  const lists =
    form.lists.length === 1
      ? `<p>${escapeHtml(t('oneList', { list: form.lists[0]!.name }))}</p>`
      : choiceGroup({
          id: 'lists',
          name: 'list',
          label: t('listsLegend'),
          kind: 'checkbox',
          required: true,
          requiredText: required,
          error: errors.get('lists'),
          choices: form.lists.map((l) => ({ value: String(l.id), label: l.name, description: l.description })),
          values: input?.lists ?? [],
        });
  return (
    inputField({
      id: 'email',
      name: 'email',
      type: 'email',
      label: t('emailLabel'),
      required: true,
      requiredText: required,
      autocomplete: 'email',
      maxLength: 255,
      value: input?.email,
      error: errors.get('email'),
    }) +
    (form.emailTwice
      ? inputField({
          id: 'email_confirm',
          name: 'email_confirm',
          type: 'email',
          label: t('emailConfirmLabel'),
          required: true,
          requiredText: required,
          autocomplete: 'email',
          maxLength: 255,
          value: input?.emailConfirm,
          error: errors.get('email_confirm'),
        })
      : '') +
    form.attributes.map((d) => attributeControl(d, input?.attributes.get(d.id) ?? [], errors.get(attributeField(d.id)), t, required)).join('') +
    lists
  );
}

export function formPage(form: SignupForm, state: FormState = {}): PublicPage {
  const t = translator(signup, form.lang);
  const c = translator(common, form.lang);
  const summary = errorSummary(
    c('errorSummaryTitle'),
    [...(state.errors ?? [])].map(([id, message]) => ({ id: id === 'lists' ? 'lists-0' : id, message: `${labelOf(form, id, t)}: ${message}` })),
  );

  const heading = text(form.data.get('header')) || form.title;
  const intro = text(form.data.get('intro'));
  const body =
    `<h1>${escapeHtml(heading)}</h1>` +
    (intro ? `<p class="intro">${escapeHtml(intro)}</p>` : '') +
    summary +
    // novalidate: the service checks every field and answers in the page's language, beside the field.
    `<form method="post" action="/subscribe/${form.id}" novalidate>` +
    formFields(form, state) +
    honeypotField(HONEYPOT, t('honeypotLabel')) +
    submitButton(text(form.data.get('button')) || t('defaultButton')) +
    '</form>';
  return renderLayout({ lang: form.lang, title: form.title, body, look: form.look, siteName: form.title, footer: form.data.get('footer') });
}

function labelOf(form: SignupForm, id: string, t: T): string {
  if (id === 'email') return t('emailLabel');
  if (id === 'email_confirm') return t('emailConfirmLabel');
  if (id === 'lists') return t('listsLegend');
  return form.attributes.find((d) => attributeField(d.id) === id)?.name ?? id;
}

/** After a sign-up (or a honeypot hit, or a known address): the page's own thank-you text, or ours. */
export function thanksPage(form: SignupForm): PublicPage {
  const t = translator(signup, form.lang);
  const own = text(form.data.get('thankyoupage'));
  return messagePage({
    lang: form.lang,
    title: form.title,
    heading: t('thanksTitle'),
    paragraphs: [own || (form.doubleOptIn ? t('thanksDoubleOptIn') : t('thanksSingleOptIn'))],
    look: form.look,
    siteName: form.title,
    footer: form.data.get('footer'),
  });
}

/**
 * An active page with no list a visitor may join (none set, or none public): the form could never be sent, so the
 * page says why instead of showing a "Lists (required)" with nothing to tick (issue 25).
 */
export function noListsPage(form: SignupForm): PublicPage {
  const t = translator(signup, form.lang);
  return messagePage({ lang: form.lang, title: t('noListsTitle'), heading: t('noListsTitle'), paragraphs: [t('noListsText')] });
}

export function notFoundPage(lang: Lang): PublicPage {
  const c = translator(common, lang);
  return messagePage({ lang, title: c('notFoundTitle'), heading: c('notFoundTitle'), paragraphs: [c('notFoundText')] });
}

/** 429: when to come back, in whole minutes (Retry-After carries the seconds). */
export function tooManyPage(form: SignupForm, retryAfterSeconds: number): PublicPage {
  const c = translator(common, form.lang);
  return messagePage({
    lang: form.lang,
    title: c('tooManyTitle'),
    heading: c('tooManyTitle'),
    paragraphs: [c('tooManyText', { minutes: Math.max(1, Math.ceil(retryAfterSeconds / 60)) })],
    look: form.look,
    siteName: form.title,
    footer: form.data.get('footer'),
  });
}
