import { escapeHtml } from '../shared/html.js';
import type { PublicPage } from './headers.js';
import { translator } from '../shared/i18n.js';
import { messagePage, renderLayout, textHtml } from './layout.js';
import { confirm } from './messages/confirm.js';
import type { PageContext } from './page-context.js';

/** The confirm page: which lists the person is on now, and the way to the preference centre. */
export function confirmedPage(context: PageContext, lists: readonly { name: string }[], preferencesUrl: string): PublicPage {
  const t = translator(confirm, context.lang);
  const onLists =
    lists.length > 0
      ? `<p>${textHtml(t('onLists'))}</p><ul class="lists">${lists.map((l) => `<li>${textHtml(l.name)}</li>`).join('')}</ul>`
      : `<p>${textHtml(t('onNoList'))}</p>`;
  const body =
    `<h1>${textHtml(t('confirmedHeading'))}</h1>` +
    onLists +
    `<p class="hint">${textHtml(t('manageHint'))}</p>` +
    `<div class="actions"><a class="button" href="${escapeHtml(preferencesUrl)}">${textHtml(t('manage'))}</a></div>`;
  return renderLayout({ ...context, title: t('title'), body });
}

export function confirmProblemPage(context: PageContext, problem: 'missing' | 'unknown'): PublicPage {
  const t = translator(confirm, context.lang);
  const [heading, text] = problem === 'missing' ? [t('missingTitle'), t('missingText')] : [t('unknownTitle'), t('unknownText')];
  return messagePage({ ...context, title: heading, heading, paragraphs: [text] });
}
