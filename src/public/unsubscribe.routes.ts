import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { originOf } from '../subscription/index.js';
import { limited } from './change-limit.js';
import { sendPage, type PublicPage } from './headers.js';
import { pickLanguage, type Lang } from '../shared/i18n.js';
import { pagePreferencesUrl as preferencesUrl } from '../sending/index.js';
import { confirmPage, donePage, expiredPage, forwardedPage, invalidPage, MAX_REASON, resubscribedPage } from './unsubscribe.pages.js';
import { Html, PlainText, ResubscribeParams, UnsubscribeForm, UnsubscribeParams } from './unsubscribe.schemas.js';
import * as service from './unsubscribe.service.js';

const tags = ['unsubscribe'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The pages carry the public pages' headers (public/headers.ts): CSP without scripts, no caching, no referrer. */
function html(reply: FastifyReply, status: number, page: PublicPage) {
  return sendPage(reply, status, page);
}

/** The text without control characters other than line feeds. */
function withoutControls(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    if (code === 10 || (code >= 32 && code !== 127)) out += c;
  }
  return out;
}

const langOf = (request: FastifyRequest): Lang => pickLanguage(null, request.headers['accept-language']);

/** A form body as an object (first value of each name); anything that is not a form reads as no fields. */
function readForm(contentType: string | undefined, body: string): Record<string, string> {
  if (!contentType?.toLowerCase().startsWith(FORM_TYPE)) return {};
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) if (!(name in out)) out[name] = value;
  return out;
}

/** A browser gets a page back; a mail client's one-click POST a line of text. */
function answersHtml(request: FastifyRequest, form: UnsubscribeForm): boolean {
  if (form['List-Unsubscribe'] !== undefined) return false;
  if (form.confirm !== undefined) return true;
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/**
 * `GET|POST /unsubscribe/{token}`, public: the List-Unsubscribe link of campaign mail. GET only asks (mail scanners
 * fetch links); POST unsubscribes, whatever the body (RFC 8058 one-click, the page's form, or nothing).
 */
export const unsubscribeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // In this plugin only: the rest of the API reads JSON whatever the content type says (reference §1.4), but mail
  // clients post a form, and no body here may fail the request.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    done(null, readForm(request.headers['content-type'], String(body)));
  });

  app.get(
    '/unsubscribe/:token',
    {
      // The token is verified, never looked up as text: a garbled one (NUL too) is the page's 404.
      config: { allowNul: true },
      schema: {
        tags,
        operationId: 'showUnsubscribe',
        summary: 'The unsubscribe link of a campaign mail: a page asking to confirm (public; changes nothing)',
        security: [],
        params: UnsubscribeParams,
        response: {
          200: { content: { 'text/html': { schema: Html } } },
          404: { description: 'Forged, garbled or outdated link', content: { 'text/html': { schema: Html } } },
        },
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      const found = await service.preview(app.ctx, request.params.token);
      if (!found) return html(reply, 404, invalidPage(lang));
      if (found === service.FORWARDED) return html(reply, 200, forwardedPage(lang));
      return html(reply, 200, confirmPage(lang, found.maskedEmail, found.lists, preferencesUrl(app.ctx, found)));
    },
  );

  app.post(
    '/unsubscribe/:token',
    {
      config: { keepBodyKeys: true, allowNul: true },
      schema: {
        tags,
        operationId: 'unsubscribe',
        summary: "Unsubscribe from the campaign's lists at once (public; RFC 8058 one-click)",
        description:
          'Removes the subscriber from the lists the campaign was sent to (every list when its segment was the whole ' +
          "audience), skips the subscriber's still-queued mail of the campaign and of any other whose audience they " +
          'left with it, and records it in their history (docs/api.md "Consent"). Idempotent. HTML for a browser, ' +
          'plain text otherwise.',
        security: [],
        params: UnsubscribeParams,
        body: { content: { [FORM_TYPE]: { schema: UnsubscribeForm } } },
        response: {
          200: { content: { 'text/html': { schema: Html }, 'text/plain': { schema: PlainText } } },
          404: { description: 'Forged, garbled or outdated link', content: { 'text/html': { schema: Html } } },
        },
      },
    },
    async (request, reply) => {
      const form = (request.body ?? {}) as UnsubscribeForm;
      const via = form.confirm !== undefined ? 'page' : 'one-click';
      const lang = langOf(request);
      // Control characters (line breaks aside) are dropped: the reason ends up in an administrator's view.
      const reason = withoutControls(form.reason ?? '')
        .trim()
        .slice(0, MAX_REASON);
      const done = await service.unsubscribe(app.ctx, request.params.token, via, originOf(request), reason);
      if (!done) return html(reply, 404, invalidPage(lang));
      if (done === service.FORWARDED) {
        if (answersHtml(request, form)) return html(reply, 200, forwardedPage(lang));
        return reply.code(200).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Not subscribed.\n');
      }
      if (answersHtml(request, form)) {
        const resubscribe = done.resubscribe ? { token: done.resubscribe, days: service.RESUBSCRIBE_DAYS } : null;
        return html(
          reply,
          200,
          donePage({ lang, maskedEmail: done.maskedEmail, removed: done.removed, resubscribe, preferencesUrl: preferencesUrl(app.ctx, done) }),
        );
      }
      return reply.code(200).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Unsubscribed.\n');
    },
  );

  app.post(
    '/unsubscribe/resubscribe/:token',
    {
      config: { keepBodyKeys: true, allowNul: true },
      schema: {
        tags,
        operationId: 'resubscribe',
        summary: 'Undo an unsubscribe: back on the lists it removed (public; the button of the page after unsubscribing)',
        description:
          `The signed token names the subscriber and the lists; it is good for ${service.RESUBSCRIBE_DAYS} days. ` +
          'Idempotent; PREFERENCES_CLIENT_LIMIT posts per client in 10 minutes (429).',
        security: [],
        params: ResubscribeParams,
        response: {
          200: { content: { 'text/html': { schema: Html } } },
          404: { description: 'Forged or garbled link', content: { 'text/html': { schema: Html } } },
          410: { description: 'Expired: the undo is offered for a week', content: { 'text/html': { schema: Html } } },
          429: { description: 'Too many changes from this client', content: { 'text/html': { schema: Html } } },
        },
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      if (await limited(request, reply, lang)) return reply;
      const done = await service.resubscribe(app.ctx, request.params.token, originOf(request));
      if (done === null) return html(reply, 404, invalidPage(lang));
      if (done === 'expired') return html(reply, 410, expiredPage(lang));
      return html(reply, 200, resubscribedPage(lang, done.maskedEmail, done.lists, preferencesUrl(app.ctx, done)));
    },
  );
};
