import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { preferencesUrl } from '../sending/index.js';
import { escapeHtml } from '../shared/html.js';
import { pickLanguage, translator } from '../shared/i18n.js';
import { confirmByLink, joinByToken, originOf, peekJoin, type JoinTarget } from '../subscription/index.js';
import { confirmedPage, confirmProblemPage } from './confirm.pages.js';
import { hiddenField, submitButton } from './forms.js';
import { sendPage } from './headers.js';
import { messagePage, renderLayout, textHtml } from './layout.js';
import { listJoin } from './messages/list-join.js';
import { pageContext } from './page-context.js';

const Html = Type.String({ description: 'An HTML page in the public layout' });
const page = (description: string) => ({ description, content: { 'text/html': { schema: Html } } });
const FORM_TYPE = 'application/x-www-form-urlencoded';
const JoinQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 300, description: 'The signed list-join token' })) });

/** Which of the page's problems a link that names nobody gets, and its status. */
function joinProblem(request: FastifyRequest, target: Exclude<JoinTarget, object>) {
  const t = translator(listJoin, pickLanguage(null, request.headers['accept-language']));
  const [heading, text] = target === 'missing' ? [t('missingTitle'), t('missingText')] : [t('unknownTitle'), t('unknownText')];
  const lang = pickLanguage(null, request.headers['accept-language']);
  return { status: target === 'missing' ? 400 : 404, page: messagePage({ lang, title: heading, heading, paragraphs: [text] }) };
}

/**
 * The pages the two confirmation mails of a sign-up link to, under `/api/v2` where their links have always pointed:
 * the double opt-in page (`GET /subscribers/confirm`: phpList's statuses and words, reference §5.5, in the language
 * and look of the subscribe page named by `page`), and the list-join page, which shows a button and joins only on
 * its POST, so that a mail scanner fetching the link changes nothing.
 */
export const confirmRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // In this plugin only: the join page's button posts a form; nothing in it is read (the token is in the query).
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string' }, (_request, _body, done) => done(null, {}));

  app.get(
    '/subscribers/confirm',
    {
      // A mangled code (NUL included) is the HTML 404 page, not the JSON 400 other routes answer.
      config: { allowNul: true },
      // A link mangled into `?uniqueId=a&uniqueId=b` gets the page for its first code, not a JSON 422.
      preValidation: async (request) => {
        const query = request.query as Record<string, unknown>;
        for (const name of ['uniqueId', 'page']) if (Array.isArray(query[name])) query[name] = String(query[name][0]);
      },
      schema: {
        tags: ['subscribers'],
        operationId: 'confirmSubscriber',
        summary: 'Confirm a subscription (public; the link of the confirmation mail)',
        security: [],
        querystring: Type.Object({
          uniqueId: Type.Optional(Type.String({ description: "The subscriber's unique id" })),
          page: Type.Optional(Type.String({ description: 'The subscribe page signed up on: its language and look (anything else is ignored)' })),
        }),
        response: {
          200: page('Confirmed: the lists and the preference-centre link'),
          400: page('No code'),
          404: page('Unknown or garbled code'),
        },
      },
    },
    async (request, reply) => {
      const result = await confirmByLink(app.ctx, request.query.uniqueId, originOf(request));
      const context = await pageContext(app.ctx, request.query.page, request.headers['accept-language']);
      if (result.outcome !== 'confirmed')
        return sendPage(reply, result.outcome === 'missing' ? 400 : 404, confirmProblemPage(context, result.outcome));
      return sendPage(reply, 200, confirmedPage(context, result.lists, preferencesUrl(app.ctx, result.subscriber)));
    },
  );

  app.get(
    '/public/list-subscriptions/confirm',
    {
      schema: {
        tags: ['subscribe pages'],
        operationId: 'showListJoin',
        summary: 'The link of a list-join mail: asks to join (public; changes nothing, mail scanners fetch links)',
        security: [],
        querystring: JoinQuery,
        response: { 200: page('A button that joins the list'), 400: page('No token'), 404: page('Forged, expired or withdrawn link') },
      },
    },
    async (request, reply) => {
      const target = await peekJoin(app.ctx, request.query.token);
      if (typeof target === 'string') {
        const problem = joinProblem(request, target);
        return sendPage(reply, problem.status, problem.page);
      }
      const lang = pickLanguage(null, request.headers['accept-language']);
      const t = translator(listJoin, lang);
      const body =
        `<h1>${textHtml(t('askTitle'))}</h1><p class="lead">${textHtml(t('askText', { list: target.listName }))}</p>` +
        `<form method="post" action="?token=${escapeHtml(encodeURIComponent(request.query.token ?? ''))}">` +
        `${hiddenField('join', 'yes')}${submitButton(t('askButton'))}</form>`;
      return sendPage(reply, 200, renderLayout({ lang, title: t('askTitle'), body }));
    },
  );

  app.post(
    '/public/list-subscriptions/confirm',
    {
      schema: {
        tags: ['subscribe pages'],
        operationId: 'confirmListSubscription',
        summary: 'Join a list (public; the button of the list-join page a confirmed subscriber is mailed)',
        security: [],
        querystring: JoinQuery,
        response: { 200: page('Joined (again: nothing changes)'), 400: page('No token'), 404: page('Forged, expired or withdrawn link') },
      },
    },
    async (request, reply) => {
      const target = await joinByToken(app.ctx, request.query.token, originOf(request));
      if (typeof target === 'string') {
        const problem = joinProblem(request, target);
        return sendPage(reply, problem.status, problem.page);
      }
      const lang = pickLanguage(null, request.headers['accept-language']);
      const t = translator(listJoin, lang);
      return sendPage(
        reply,
        200,
        messagePage({ lang, title: t('joinedHeading'), heading: t('joinedHeading'), paragraphs: [t('joinedText', { list: target.listName })] }),
      );
    },
  );
};
