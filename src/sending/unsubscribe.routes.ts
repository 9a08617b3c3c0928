import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { originOf } from '../subscription/subscriber.routes.js';
import { confirmPage, donePage, FORWARDED_PAGE, INVALID_PAGE } from './unsubscribe.pages.js';
import { Html, PlainText, UnsubscribeForm, UnsubscribeParams } from './unsubscribe.schemas.js';
import * as service from './unsubscribe.service.js';

const tags = ['unsubscribe'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Headers of every page: the token in the URL is a credential, so no caching, no referer, no indexing; the pages
 * need nothing but their own form.
 */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
};

function html(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
}

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
      const found = await service.preview(app.ctx, request.params.token);
      if (!found) return html(reply, 404, INVALID_PAGE);
      if (found === service.FORWARDED) return html(reply, 200, FORWARDED_PAGE);
      return html(reply, 200, confirmPage(found.maskedEmail, found.lists));
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
          "Removes the subscriber from the lists the campaign was sent to, skips the subscriber's still-queued mail " +
          'of the campaign and records it in their history. Idempotent. HTML for a browser, plain text otherwise.',
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
      const done = await service.unsubscribe(app.ctx, request.params.token, via, originOf(request));
      if (!done) return html(reply, 404, INVALID_PAGE);
      if (done === service.FORWARDED) {
        if (answersHtml(request, form)) return html(reply, 200, FORWARDED_PAGE);
        return reply.code(200).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Not subscribed.\n');
      }
      if (answersHtml(request, form)) return html(reply, 200, donePage(done.maskedEmail, done.removed));
      return reply.code(200).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Unsubscribed.\n');
    },
  );
};
