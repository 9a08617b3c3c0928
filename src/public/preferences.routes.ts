import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { originOf } from '../subscription/index.js';
import { readFormBody } from './forms.js';
import { limited } from './change-limit.js';
import { sendPage } from './headers.js';
import { pickLanguage, translator, type Lang } from '../shared/i18n.js';
import { preferences } from './messages/preferences.js';
import { expiredLinkPage, forwardedPage, invalidLinkPage, preferencesPage, tooManyRequestsPage, type Saved } from './preferences.pages.js';
import { FormBody, HtmlPage, PreferencesQuery, TokenParams } from './preferences.schemas.js';
import * as service from './preferences.service.js';
import { requestEmailChange } from './address-change.service.js';

const tags = ['public pages'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
const SAVED: readonly Saved[] = ['lists', 'attributes', 'format', 'left'];

const langOf = (request: FastifyRequest): Lang => pickLanguage(null, request.headers['accept-language']);

/** The posted form as name → values; a body that is not a form reads as no fields (and changes nothing). */
function formOf(request: FastifyRequest): Map<string, string[]> {
  const body = request.body;
  return typeof body === 'string' ? readFormBody(body) : new Map();
}

/** The answer for a token that names nobody: what happened and what to do, never which of the cases it was. */
async function withSubscriber(request: FastifyRequest, token: string, reply: FastifyReply) {
  const lang = langOf(request);
  const found = await service.resolve(request.server.ctx, token);
  if (found === null) return { done: sendPage(reply, 404, invalidLinkPage(lang)) };
  if (found === 'expired') return { done: sendPage(reply, 410, expiredLinkPage(lang)) };
  if (found === 'forwarded') return { done: sendPage(reply, 200, forwardedPage(lang)) };
  return { subscriber: found.subscriber, lang };
}

/**
 * The preference centre, `GET|POST /preferences/{token}` (the `[PREFERENCESURL]` of campaign mail). HTML pages;
 * every change is a POST. The links of the address-change mails are address-change.routes.ts.
 */
export const preferencesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // In this plugin only: forms arrive as text and are read by readFormBody (every value of a repeated name kept).
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string' }, (_request, body, done) => done(null, String(body)));

  app.get(
    '/preferences/:token',
    {
      config: { allowNul: true },
      schema: {
        tags,
        operationId: 'showPreferences',
        summary: "A subscriber's preference centre (public HTML page; the signed link is the credential)",
        security: [],
        params: TokenParams,
        querystring: PreferencesQuery,
        response: {
          200: HtmlPage('The preference centre (or, for a forwarded copy, a page saying there is nothing to change)'),
          404: HtmlPage('Forged, garbled or outdated link: what happened and what to do'),
          410: HtmlPage('Expired link (older than PREFERENCES_LINK_DAYS): what to do'),
        },
      },
    },
    async (request, reply) => {
      const found = await withSubscriber(request, request.params.token, reply);
      if ('done' in found) return found.done;
      const saved = SAVED.find((s) => s === request.query.saved) ?? null;
      const view = await service.view(app.ctx, found.subscriber);
      return sendPage(reply, 200, preferencesPage({ lang: found.lang, view, saved }));
    },
  );

  app.post(
    '/preferences/:token',
    {
      config: { allowNul: true, keepBodyKeys: true },
      schema: {
        tags,
        operationId: 'changePreferences',
        summary: 'Change preferences: lists, attributes, mail format, address, or leave every list (public form post)',
        description:
          '`action` says which form: `lists` (`list` once per ticked list id), `attributes` (`attr_<definition id>` per ' +
          'editable attribute), `format` (`html` or `text`), `email` (the new address: a confirmation link goes to it), ' +
          '`leave` (off every list). 303 back to the page with `?saved=…`; 422 with the form and the messages; the ' +
          'address change answers 200 with the same notice whether or not the address is free. ' +
          'PREFERENCES_CLIENT_LIMIT posts per client in 10 minutes (429).',
        security: [],
        params: TokenParams,
        body: { content: { [FORM_TYPE]: { schema: FormBody } } },
        response: {
          200: HtmlPage('The page with a notice (address change asked)'),
          303: { description: 'Saved: back to the page, with a notice', type: 'null' },
          404: HtmlPage('Forged, garbled or outdated link'),
          410: HtmlPage('Expired link'),
          422: HtmlPage('The page again, each message beside its field'),
          429: HtmlPage('Too many changes from this client: when to try again'),
        },
      },
    },
    async (request, reply) => {
      const found = await withSubscriber(request, request.params.token, reply);
      if ('done' in found) return found.done;
      const { subscriber, lang } = found;
      if (await limited(request, reply, lang)) return reply;
      const form = formOf(request);
      const origin = originOf(request);
      const back = (saved: Saved) =>
        reply.code(303).header('location', `/preferences/${request.params.token}?saved=${saved}`).header('cache-control', 'no-store').send();
      const action = form.get('action')?.[0];
      if (action === 'lists') {
        const wanted = new Set((form.get('list') ?? []).map(Number).filter((n) => Number.isInteger(n) && n > 0));
        await service.saveLists(app.ctx, subscriber, wanted, origin);
        return back('lists');
      }
      if (action === 'attributes') {
        const values = new Map<number, string[]>();
        for (const [name, posted] of form) {
          const id = name.startsWith('attr_') ? Number(name.slice(5)) : NaN;
          if (Number.isInteger(id) && id > 0) values.set(id, posted);
        }
        const errors = await service.saveAttributes(app.ctx, subscriber, values, origin);
        if (errors.size === 0) return back('attributes');
        const view = await service.view(app.ctx, subscriber);
        return sendPage(reply, 422, preferencesPage({ lang, view, attributeErrors: errors, attributeInput: values }));
      }
      if (action === 'format') {
        const format = form.get('format')?.[0];
        if (format === 'html' || format === 'text') await service.saveFormat(app.ctx, subscriber, format === 'html', origin);
        return back('format');
      }
      if (action === 'leave') {
        await service.leaveAll(app.ctx, subscriber, origin);
        return back('left');
      }
      if (action === 'email') {
        const t = translator(preferences, lang);
        const asked = form.get('email')?.[0] ?? '';
        const outcome = await requestEmailChange(app.ctx, subscriber, asked, origin, lang);
        if (outcome === 'invalid' || outcome === 'same') {
          const view = await service.view(app.ctx, subscriber);
          const emailError = outcome === 'invalid' ? t('emailInvalid') : t('emailSame');
          return sendPage(reply, 422, preferencesPage({ lang, view, emailError, emailInput: asked.slice(0, 255) }));
        }
        if (typeof outcome === 'object') {
          const seconds = Math.max(1, Math.ceil(outcome.retryAfter));
          return sendPage(reply, 429, tooManyRequestsPage(lang, seconds), { 'retry-after': String(seconds) });
        }
        const view = await service.view(app.ctx, subscriber);
        return sendPage(reply, 200, preferencesPage({ lang, view, saved: 'email', emailAsked: asked.trim() }));
      }
      // No known action (a body that is not one of the forms): the page as it is, nothing changed.
      const view = await service.view(app.ctx, subscriber);
      return sendPage(reply, 200, preferencesPage({ lang, view }));
    },
  );
};
