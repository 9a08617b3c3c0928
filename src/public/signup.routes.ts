import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { rawPathId } from '../plugins/http.js';
import { NotFoundError, TooManyRequestsError } from '../shared/errors.js';
import { originOf } from '../subscription/index.js';
import { sendPage } from './headers.js';
import { pickLanguage, translator } from '../shared/i18n.js';
import { signup } from './messages/signup.js';
import { checkSignup, readSignupInput, type FormBody } from './signup.form.js';
import { formPage, noListsPage, notFoundPage, thanksPage, tooManyPage } from './signup.pages.js';
import { HtmlPage, SignupFormBody, SignupParams } from './signup.schemas.js';
import { loadSignupForm, signUp } from './signup.service.js';

const tags = ['public pages'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
/** More fields than any form has: the rest of a bigger body is not read. */
const MAX_FIELDS = 300;

/**
 * A form body as an object: a name sent once is a string, a name sent again a list of its values in order. NUL
 * characters (which nobody types and PostgreSQL cannot store) are dropped here, so a mangled post still gets a form.
 */
function parseForm(body: string): FormBody {
  const out: Record<string, string | string[]> = Object.create(null);
  let n = 0;
  for (const [rawName, rawValue] of new URLSearchParams(body)) {
    if (++n > MAX_FIELDS) break;
    const name = rawName.replaceAll('\0', '');
    const value = rawValue.replaceAll('\0', '');
    const had = out[name];
    out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return { ...out };
}

/**
 * The hosted sign-up form of a subscribe page: `GET /subscribe/{pageId}` shows it, `POST` signs up and redirects
 * (303) to `GET /subscribe/{pageId}/thanks`, so a reload does not post again. Every answer is an HTML page in the
 * page's language and look.
 */
export const signupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // In this plugin only: the rest of the service reads bodies as JSON (http.ts).
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string' }, (_request, body, done) => done(null, parseForm(String(body))));

  const lang = (request: FastifyRequest) => pickLanguage(null, request.headers['accept-language']);
  const loadOr404 = async (request: FastifyRequest) => {
    try {
      return await loadSignupForm(app.ctx, rawPathId(request, 'pageId'), request.headers['accept-language']);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  };

  app.get(
    '/subscribe/:pageId',
    {
      schema: {
        tags,
        operationId: 'showSignupForm',
        summary: "A subscribe page's sign-up form (public HTML page)",
        security: [],
        params: SignupParams,
        response: { 200: HtmlPage('The form, or why the page takes no sign-ups yet (no list to join)'), 404: HtmlPage('Unknown or inactive page') },
      },
    },
    async (request, reply) => {
      const form = await loadOr404(request);
      if (!form) return sendPage(reply, 404, notFoundPage(lang(request)));
      if (form.lists.length === 0) return sendPage(reply, 200, noListsPage(form));
      return sendPage(reply, 200, formPage(form));
    },
  );

  app.post(
    '/subscribe/:pageId',
    {
      config: { keepBodyKeys: true },
      schema: {
        tags,
        operationId: 'submitSignupForm',
        summary: "Sign up on a subscribe page's form (public; double opt-in unless the page says otherwise)",
        description:
          'Answers 303 to the thank-you page whether the address was new, unconfirmed, confirmed or blacklisted (and when ' +
          'the honeypot is filled); 422 with the form, each message beside its field; 429 with Retry-After (one sign-up ' +
          'per address in 10 minutes, SUBSCRIBE_PAGE_CLIENT_LIMIT per client, shared with the API).',
        security: [],
        params: SignupParams,
        body: { content: { [FORM_TYPE]: { schema: SignupFormBody } } },
        response: {
          303: { description: 'Signed up (or nothing to do): see the thank-you page', type: 'null' },
          404: HtmlPage('Unknown or inactive page'),
          409: HtmlPage('The page has no list to join yet: why, and what to do'),
          422: HtmlPage('The form again, with the messages'),
          429: HtmlPage('Too many sign-ups: when to try again'),
        },
      },
    },
    async (request, reply) => {
      const form = await loadOr404(request);
      if (!form) return sendPage(reply, 404, notFoundPage(lang(request)));
      if (form.lists.length === 0) return sendPage(reply, 409, noListsPage(form));
      const body = (request.body ?? {}) as FormBody;
      const input = readSignupInput(form, body);
      const thanks = () => reply.code(303).header('location', `/subscribe/${form.id}/thanks`).header('cache-control', 'no-store').send();
      // A robot filled the field people never see: it is told what everyone is told, and nothing happens.
      if (input.honeypot.trim() !== '') return thanks();
      const checked = checkSignup(form, input, translator(signup, form.lang));
      if (!checked.ok) return sendPage(reply, 422, formPage(form, { input, errors: checked.errors }));
      try {
        await signUp(app.ctx, form, checked.signup, originOf(request));
      } catch (err) {
        if (!(err instanceof TooManyRequestsError)) throw err;
        const retryAfter = Number(err.headers['retry-after']);
        return sendPage(reply, 429, tooManyPage(form, retryAfter), { 'retry-after': String(retryAfter) });
      }
      return thanks();
    },
  );

  app.get(
    '/subscribe/:pageId/thanks',
    {
      schema: {
        tags,
        operationId: 'showSignupThanks',
        summary: "A subscribe page's thank-you page (public HTML page)",
        security: [],
        params: SignupParams,
        response: { 200: HtmlPage("The page's thank-you text"), 404: HtmlPage('Unknown or inactive page') },
      },
    },
    async (request, reply) => {
      const form = await loadOr404(request);
      if (!form) return sendPage(reply, 404, notFoundPage(lang(request)));
      return sendPage(reply, 200, thanksPage(form));
    },
  );
};
