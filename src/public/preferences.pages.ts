import { escapeHtml } from '../shared/html.js';
import { displayAttributeValue } from '../subscription/index.js';
import { checkboxField, choiceGroup, errorSummary, hiddenField, inputField, selectField, submitButton, textareaField } from './forms.js';
import type { PublicPage } from './headers.js';
import { translator, type Lang } from '../shared/i18n.js';
import { messagePage, renderLayout } from './layout.js';
import { common } from './messages/common.js';
import { errors } from './messages/errors.js';
import { preferences } from './messages/preferences.js';
import type { EditableAttribute, FieldErrors, PreferenceView } from './preferences.service.js';

/*
 * The preference centre's page: one form per kind of change, each posting to the page's own URL (the token in the
 * path is the credential) with an `action` field saying which. No script: a change reloads the page.
 */

export type Saved = 'lists' | 'attributes' | 'format' | 'left' | 'email';

export interface PreferencesPageInput {
  readonly lang: Lang;
  readonly view: PreferenceView;
  readonly saved?: Saved | null;
  /** The address an address change was asked for (shown in the notice as typed). */
  readonly emailAsked?: string | null;
  readonly attributeErrors?: FieldErrors;
  /** The attribute values as posted, kept when the form comes back with errors. */
  readonly attributeInput?: ReadonlyMap<number, readonly string[]>;
  readonly emailError?: string | null;
  readonly emailInput?: string;
}

const form = (action: string, body: string) => `<form method="post">${hiddenField('action', action)}${body}</form>`;

function attributeField(
  attribute: EditableAttribute,
  t: ReturnType<typeof translator<typeof preferences.en>>,
  requiredText: string,
  error: string | null,
  posted: readonly string[] | undefined,
): string {
  const { definition, value } = attribute;
  const type = (definition.type ?? 'textline').toLowerCase();
  const common = {
    id: `attr-${definition.id}`,
    name: `attr_${definition.id}`,
    label: definition.name,
    required: definition.required,
    requiredText,
    error,
  };
  const stored = value === null ? [] : value.split(',').map((v) => v.trim());
  const current = posted ?? (type === 'checkbox' ? (value === '1' ? ['on'] : []) : stored);
  const choices = definition.options.map((o) => ({ value: String(o.id), label: o.name }));
  switch (type) {
    case 'checkbox':
      return checkboxField({ ...common, label: definition.name, checked: current.length > 0, value: 'on' });
    case 'checkboxgroup':
      return choiceGroup({ ...common, kind: 'checkbox', choices, values: current });
    case 'radio':
      return choiceGroup({ ...common, kind: 'radio', choices, values: current.slice(0, 1) });
    case 'select':
      return selectField({ ...common, choices, value: current[0] ?? '', emptyLabel: t('chooseOne') });
    case 'textarea':
      return textareaField({ ...common, value: posted?.[0] ?? value ?? '', maxLength: 65_535 });
    case 'date':
      return inputField({ ...common, type: 'date', value: posted?.[0] ?? value ?? '' });
    default:
      return inputField({ ...common, value: posted?.[0] ?? displayAttributeValue(definition, value), maxLength: 1000 });
  }
}

export function preferencesPage(input: PreferencesPageInput): PublicPage {
  const t = translator(preferences, input.lang);
  const c = translator(common, input.lang);
  const { view } = input;
  const notices: Record<Saved, string> = {
    lists: t('savedLists'),
    attributes: t('savedAttributes'),
    format: t('savedFormat'),
    left: t('leftAll'),
    email: t('emailSent', { email: input.emailAsked ?? '' }),
  };
  const notice = input.saved ? `<div class="notice ok" role="status"><p>${escapeHtml(notices[input.saved])}</p></div>` : '';

  const fieldErrors = input.attributeErrors ?? new Map();
  const errorText = (id: number) => {
    const e = fieldErrors.get(id);
    return e === undefined ? null : e === 'required' ? t('valueRequired') : e;
  };
  const summary = [
    ...view.attributes
      .filter((a) => fieldErrors.has(a.definition.id))
      .map((a) => ({ id: `attr-${a.definition.id}`, message: `${a.definition.name}: ${errorText(a.definition.id)}` })),
    ...(input.emailError ? [{ id: 'email', message: input.emailError }] : []),
  ];

  const listChoices = view.lists.map((l) => ({
    value: String(l.id),
    label: l.name,
    description: [l.description?.trim() || null, l.isPublic ? null : t('notPublic')].filter(Boolean).join(' ') || null,
  }));
  const listsSection =
    `<section aria-labelledby="lists-h"><h2 id="lists-h">${escapeHtml(t('listsHeading'))}</h2>` +
    (view.lists.length === 0
      ? `<p>${escapeHtml(t('noLists'))}</p>`
      : form(
          'lists',
          choiceGroup({
            id: 'lists',
            name: 'list',
            label: t('listsHint'),
            kind: 'checkbox',
            choices: listChoices,
            values: view.lists.filter((l) => l.member).map((l) => String(l.id)),
          }) + submitButton(t('listsSave')),
        )) +
    '</section>';

  const attributesSection =
    view.attributes.length === 0
      ? ''
      : `<section aria-labelledby="attrs-h"><h2 id="attrs-h">${escapeHtml(t('attributesHeading'))}</h2>` +
        form(
          'attributes',
          view.attributes
            .map((a) => attributeField(a, t, c('required'), errorText(a.definition.id), input.attributeInput?.get(a.definition.id)))
            .join('') + submitButton(t('attributesSave')),
        ) +
        '</section>';

  const formatSection =
    `<section aria-labelledby="format-h"><h2 id="format-h">${escapeHtml(t('formatHeading'))}</h2>` +
    form(
      'format',
      choiceGroup({
        id: 'format',
        name: 'format',
        label: t('formatLegend'),
        kind: 'radio',
        choices: [
          { value: 'html', label: t('formatHtml') },
          { value: 'text', label: t('formatText') },
        ],
        values: [view.htmlEmail ? 'html' : 'text'],
      }) + submitButton(t('formatSave')),
    ) +
    '</section>';

  const emailSection =
    `<section aria-labelledby="email-h"><h2 id="email-h">${escapeHtml(t('emailHeading'))}</h2>` +
    form(
      'email',
      inputField({
        id: 'email',
        name: 'email',
        type: 'email',
        label: t('emailLabel'),
        hint: t('emailHint'),
        error: input.emailError ?? null,
        value: input.emailInput ?? '',
        autocomplete: 'email',
        maxLength: 255,
      }) + submitButton(t('emailSave')),
    ) +
    '</section>';

  const leaveSection =
    `<section aria-labelledby="leave-h"><h2 id="leave-h">${escapeHtml(t('leaveHeading'))}</h2>` +
    `<p>${escapeHtml(t('leaveText'))}</p>` +
    form('leave', `<div class="actions"><button type="submit" class="secondary">${escapeHtml(t('leaveButton'))}</button></div>`) +
    '</section>';

  const body =
    `<h1>${escapeHtml(t('title'))}</h1>` +
    `<p class="lead">${escapeHtml(t('intro', { email: view.email }))}</p>` +
    notice +
    errorSummary(c('errorSummaryTitle'), summary) +
    listsSection +
    attributesSection +
    formatSection +
    emailSection +
    leaveSection;
  return renderLayout({ lang: input.lang, title: t('title'), body });
}

export function addressChangedPage(lang: Lang, email: string, manageUrl: string): PublicPage {
  const t = translator(preferences, lang);
  const body =
    `<h1>${escapeHtml(t('changedTitle'))}</h1><p class="lead">${escapeHtml(t('changedText', { email }))}</p>` +
    `<p><a href="${escapeHtml(manageUrl)}">${escapeHtml(t('manageLink'))}</a></p>`;
  return renderLayout({ lang, title: t('changedTitle'), body });
}

export function forwardedPage(lang: Lang): PublicPage {
  const t = translator(preferences, lang);
  return messagePage({ lang, title: t('forwardedTitle'), heading: t('forwardedTitle'), paragraphs: [t('forwardedText')] });
}

/* The error pages shared by the subscriber pages (preferences, unsubscribe, forward). */

export function invalidLinkPage(lang: Lang): PublicPage {
  const t = translator(errors, lang);
  return messagePage({ lang, title: t('invalidTitle'), heading: t('invalidTitle'), paragraphs: [t('invalidText'), t('invalidHelp')] });
}

export function expiredLinkPage(lang: Lang): PublicPage {
  const t = translator(errors, lang);
  return messagePage({ lang, title: t('expiredTitle'), heading: t('expiredTitle'), paragraphs: [t('expiredText'), t('expiredHelp')] });
}

export function tooManyRequestsPage(lang: Lang, retryAfterSeconds: number): PublicPage {
  const t = translator(errors, lang);
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return messagePage({ lang, title: t('tooManyTitle'), heading: t('tooManyTitle'), paragraphs: [t('tooManyText', { minutes })] });
}

export function addressTakenPage(lang: Lang): PublicPage {
  const t = translator(errors, lang);
  return messagePage({ lang, title: t('takenTitle'), heading: t('takenTitle'), paragraphs: [t('takenText'), t('invalidHelp')] });
}

export function badFormPage(lang: Lang): PublicPage {
  const t = translator(errors, lang);
  return messagePage({ lang, title: t('badFormTitle'), heading: t('badFormTitle'), paragraphs: [t('badFormText')] });
}
