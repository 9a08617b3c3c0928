import { escapeHtml } from '../shared/html.js';
import { errorSummary, inputField, submitButton, textareaField } from './forms.js';
import type { PublicPage } from './headers.js';
import { translator, type Lang } from '../shared/i18n.js';
import { messagePage, renderLayout } from './layout.js';
import { common } from './messages/common.js';
import { forward } from './messages/forward.js';

/*
 * The forward-to-a-friend page: a form for the friends' addresses (FORWARD_EMAIL_COUNT of them), the forwarder's
 * name and an optional note, posting to its own URL (the signed token in the path names campaign and forwarder).
 */

export interface ForwardInput {
  readonly friends: readonly string[];
  readonly fromName: string;
  readonly note: string;
}

export interface ForwardFormPage {
  readonly lang: Lang;
  readonly subject: string;
  readonly friendCount: number;
  /** 0: any length. */
  readonly noteMax: number;
  readonly input?: ForwardInput;
  /** By field id: `friend-<i>`, `from-name`, `note`. */
  readonly errors?: ReadonlyMap<string, string>;
}

export function forwardFormPage(page: ForwardFormPage): PublicPage {
  const t = translator(forward, page.lang);
  const c = translator(common, page.lang);
  const errors = page.errors ?? new Map<string, string>();
  const friends = Array.from({ length: page.friendCount }, (_, i) =>
    inputField({
      id: `friend-${i}`,
      name: 'friend',
      type: 'email',
      label: page.friendCount === 1 ? t('friend') : t('friendN', { n: i + 1 }),
      required: i === 0,
      requiredText: c('required'),
      hint: i === 0 && page.friendCount > 1 ? t('friendsHint', { count: page.friendCount }) : null,
      error: errors.get(`friend-${i}`) ?? null,
      value: page.input?.friends[i] ?? '',
      maxLength: 255,
    }),
  ).join('');
  const body =
    `<h1>${escapeHtml(t('title'))}</h1><p class="lead">${escapeHtml(t('intro', { subject: page.subject }))}</p>` +
    errorSummary(
      c('errorSummaryTitle'),
      [...errors].map(([id, message]) => ({ id, message })),
    ) +
    '<form method="post">' +
    friends +
    inputField({
      id: 'from-name',
      name: 'from_name',
      label: t('fromName'),
      hint: t('fromNameHint'),
      required: true,
      requiredText: c('required'),
      error: errors.get('from-name') ?? null,
      value: page.input?.fromName ?? '',
      autocomplete: 'name',
      maxLength: 255,
    }) +
    textareaField({
      id: 'note',
      name: 'note',
      label: t('note'),
      hint: page.noteMax > 0 ? t('noteHint', { max: page.noteMax }) : null,
      error: errors.get('note') ?? null,
      value: page.input?.note ?? '',
      ...(page.noteMax > 0 ? { maxLength: page.noteMax } : {}),
    }) +
    submitButton(t('send')) +
    '</form>';
  return renderLayout({ lang: page.lang, title: t('title'), body });
}

export function forwardDonePage(lang: Lang): PublicPage {
  const t = translator(forward, lang);
  const body = `<h1>${escapeHtml(t('doneTitle'))}</h1><p class="lead">${escapeHtml(t('done'))}</p><p><a href="">${escapeHtml(t('another'))}</a></p>`;
  return renderLayout({ lang, title: t('doneTitle'), body });
}

export function notReceivedPage(lang: Lang): PublicPage {
  const t = translator(forward, lang);
  return messagePage({ lang, title: t('notReceivedTitle'), heading: t('notReceivedTitle'), paragraphs: [t('notReceived')] });
}
