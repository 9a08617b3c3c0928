import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { preferencesUrl } from '../sending/index.js';
import { escapeHtml } from '../shared/html.js';
import { pickLanguage, translator, type Lang } from '../shared/i18n.js';
import { originOf } from '../subscription/index.js';
import * as service from './address-change.service.js';
import { limited } from './change-limit.js';
import { hiddenField, submitButton } from './forms.js';
import { sendPage } from './headers.js';
import { messagePage, renderLayout } from './layout.js';
import { preferences } from './messages/preferences.js';
import { addressChangedPage, addressTakenPage, expiredLinkPage, invalidLinkPage } from './preferences.pages.js';
import { FormBody, HtmlPage, TokenParams } from './preferences.schemas.js';

const tags = ['public pages'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
const langOf = (request: FastifyRequest): Lang => pickLanguage(null, request.headers['accept-language']);

/**
 * The links of the address-change mails: `GET|POST /preferences/email/{token}` (mailed to the new address; makes the
 * change) and `GET|POST /preferences/email-undo/{token}` (mailed to the old address once the change is made; changes
 * it back). GET shows a button and changes nothing (mail scanners fetch links); POST acts.
 */
export const addressChangeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // In this plugin only: the buttons post forms; nothing in them is read (the token is in the path).
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string' }, (_request, body, done) => done(null, String(body)));

  for (const undo of [false, true]) {
    const path = undo ? '/preferences/email-undo/:token' : '/preferences/email/:token';
    app.get(
      path,
      {
        config: { allowNul: true },
        schema: {
          tags,
          operationId: undo ? 'showAddressUndo' : 'showAddressChange',
          summary: undo
            ? 'The link mailed to the old address after an address change: asks to change it back (public; changes nothing)'
            : 'The link of an address-change mail: asks to confirm (public; changes nothing, mail scanners fetch links)',
          security: [],
          params: TokenParams,
          response: {
            200: HtmlPage('A button confirming the address'),
            404: HtmlPage('Forged or garbled link'),
            410: HtmlPage('Expired link'),
          },
        },
      },
      async (request, reply) => {
        const lang = langOf(request);
        const opened = service.peekEmailChange(app.ctx, request.params.token, undo);
        if (opened === null) return sendPage(reply, 404, invalidLinkPage(lang));
        if (opened === 'expired') return sendPage(reply, 410, expiredLinkPage(lang));
        const t = translator(preferences, lang);
        const [title, text, button] = undo
          ? [t('undoTitle'), t('undoText', { email: opened.email }), t('undoButton')]
          : [t('confirmChangeTitle'), t('confirmChangeText', { email: opened.email }), t('confirmChangeButton')];
        const body =
          `<h1>${escapeHtml(title)}</h1><p class="lead">${escapeHtml(text)}</p>` +
          `<form method="post">${hiddenField('confirm', 'yes')}${submitButton(button)}</form>`;
        return sendPage(reply, 200, renderLayout({ lang, title, body }));
      },
    );

    app.post(
      path,
      {
        config: { allowNul: true, keepBodyKeys: true },
        schema: {
          tags,
          operationId: undo ? 'undoAddressChange' : 'confirmAddressChange',
          summary: undo
            ? 'Change the address back: the subscriber moves to the old address if it is still free (public)'
            : 'Confirm an address change: the subscriber moves to the new address if it is still free (public)',
          security: [],
          params: TokenParams,
          body: { content: { [FORM_TYPE]: { schema: FormBody } } },
          response: {
            200: HtmlPage('Changed, with a link to the preference centre'),
            404: HtmlPage('Forged or garbled link'),
            409: HtmlPage('The address is no longer free: nothing changed'),
            410: HtmlPage('Expired link'),
            429: HtmlPage('Too many changes from this client'),
          },
        },
      },
      async (request, reply) => {
        const lang = langOf(request);
        if (await limited(request, reply, lang)) return reply;
        const result = undo
          ? await service.undoEmailChange(app.ctx, request.params.token, originOf(request))
          : await service.confirmEmailChange(app.ctx, request.params.token, originOf(request), lang);
        if (result.outcome === 'invalid') return sendPage(reply, 404, invalidLinkPage(lang));
        if (result.outcome === 'expired') return sendPage(reply, 410, expiredLinkPage(lang));
        if (result.outcome !== 'changed') return sendPage(reply, 409, addressTakenPage(lang));
        const manageUrl = preferencesUrl(app.ctx, result.subscriber);
        if (!undo) return sendPage(reply, 200, addressChangedPage(lang, result.subscriber.email, manageUrl));
        const t = translator(preferences, lang);
        const page = messagePage({
          lang,
          title: t('undoneTitle'),
          heading: t('undoneTitle'),
          paragraphs: [t('undoneText', { email: result.subscriber.email })],
        });
        return sendPage(reply, 200, page);
      },
    );
  }
};
