import { escapeHtml } from '../shared/html.js';
import { hiddenField, textareaField } from './forms.js';
import type { PublicPage } from './headers.js';
import { renderLayout } from './layout.js';
import { errors } from './messages/errors.js';
import { unsubscribe } from './messages/unsubscribe.js';
import { translator, type Lang } from '../shared/i18n.js';
import type { ListName } from './unsubscribe.repository.js';

/*
 * The pages of the unsubscribe link, in the public pages' layout (src/public). No scripts; list names are the
 * administrators' words and are escaped; the address is shown masked (whoever holds the link sees it).
 */

/** Longest reason kept (the rest is cut). */
export const MAX_REASON = 1000;

const listNames = (lists: readonly ListName[]) => lists.map((l) => l.name).join(', ');
const page = (lang: Lang, title: string, body: string) => renderLayout({ lang, title, body });
const manage = (lang: Lang, url: string | null) =>
  url ? `<p><a href="${escapeHtml(url)}">${escapeHtml(translator(unsubscribe, lang)('manageLink'))}</a></p>` : '';

/** GET: asks before doing anything, so that a mail scanner following the link unsubscribes nobody. */
export function confirmPage(lang: Lang, maskedEmail: string, lists: readonly ListName[], preferencesUrl: string | null): PublicPage {
  const t = translator(unsubscribe, lang);
  if (lists.length === 0) return nothingPage(lang, maskedEmail, preferencesUrl);
  // No `action`: the form posts to this very URL (the token is in the path).
  const body =
    `<h1>${escapeHtml(t('ask', { email: maskedEmail, lists: listNames(lists) }))}</h1>` +
    `<p>${escapeHtml(t('askText'))}</p>` +
    `<form method="post">${hiddenField('confirm', 'yes')}` +
    textareaField({ id: 'reason', name: 'reason', label: t('reasonLabel'), hint: t('reasonHint'), maxLength: MAX_REASON }) +
    `<div class="actions"><button type="submit">${escapeHtml(t('button'))}</button></div></form>` +
    manage(lang, preferencesUrl);
  return page(lang, t('title'), body);
}

function nothingPage(lang: Lang, maskedEmail: string, preferencesUrl: string | null): PublicPage {
  const t = translator(unsubscribe, lang);
  const body = `<h1>${escapeHtml(t('nothingTitle'))}</h1><p>${escapeHtml(t('nothing', { email: maskedEmail }))}</p>` + manage(lang, preferencesUrl);
  return page(lang, t('title'), body);
}

export interface DoneInput {
  readonly lang: Lang;
  readonly maskedEmail: string;
  readonly removed: readonly ListName[];
  /** The signed resubscribe token (null: nothing to undo), good for `days`. */
  readonly resubscribe: { readonly token: string; readonly days: number } | null;
  readonly preferencesUrl: string | null;
}

export function donePage(input: DoneInput): PublicPage {
  const t = translator(unsubscribe, input.lang);
  if (input.removed.length === 0) return nothingPage(input.lang, input.maskedEmail, input.preferencesUrl);
  const undo = input.resubscribe
    ? `<form method="post" action="${escapeHtml(`resubscribe/${input.resubscribe.token}`)}" class="undo">` +
      `<p>${escapeHtml(t('resubscribeText', { days: input.resubscribe.days }))}</p>` +
      `<div class="actions"><button type="submit" class="secondary">${escapeHtml(t('resubscribeButton'))}</button></div></form>`
    : '';
  const body =
    `<h1>${escapeHtml(t('doneTitle'))}</h1><p>${escapeHtml(t('done', { email: input.maskedEmail, lists: listNames(input.removed) }))}</p>` +
    // The link before the undo form: the form's buttons end the card, so nothing sits flush below them.
    manage(input.lang, input.preferencesUrl) +
    undo;
  return page(input.lang, t('doneTitle'), body);
}

export function resubscribedPage(lang: Lang, maskedEmail: string, lists: readonly ListName[], preferencesUrl: string | null): PublicPage {
  const t = translator(unsubscribe, lang);
  const body =
    `<h1>${escapeHtml(t('resubscribedTitle'))}</h1><p>${escapeHtml(t('resubscribed', { email: maskedEmail, lists: listNames(lists) }))}</p>` +
    manage(lang, preferencesUrl);
  return page(lang, t('resubscribedTitle'), body);
}

/** The unsubscribe link of a forwarded copy: its reader was never subscribed. */
export function forwardedPage(lang: Lang): PublicPage {
  const t = translator(unsubscribe, lang);
  return page(lang, t('title'), `<h1>${escapeHtml(t('nothingTitle'))}</h1><p>${escapeHtml(t('forwarded'))}</p>`);
}

/** A forged, garbled or outdated link: what happened and what to do. */
export function invalidPage(lang: Lang): PublicPage {
  const t = translator(unsubscribe, lang);
  const e = translator(errors, lang);
  return page(
    lang,
    t('title'),
    `<h1>${escapeHtml(t('invalidTitle'))}</h1><p>${escapeHtml(e('invalidText'))}</p><p>${escapeHtml(e('invalidHelp'))}</p>`,
  );
}

export function expiredPage(lang: Lang): PublicPage {
  const e = translator(errors, lang);
  return page(lang, e('expiredTitle'), `<h1>${escapeHtml(e('expiredTitle'))}</h1><p>${escapeHtml(e('expiredText'))}</p>`);
}
