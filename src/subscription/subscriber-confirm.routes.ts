import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { confirmedPage, confirmProblemPage, sendPage, pageContext } from '../public/index.js';
import { preferencesUrl } from '../sending/index.js';
import { originOf } from './history-origin.js';
import { listsOfSubscribers } from './subscriber.repository.js';
import * as service from './subscriber.service.js';

const Html = Type.String({ description: 'An HTML page in the public layout' });

/**
 * The public double opt-in page the confirmation mail links to: phpList's statuses and words (reference §5.5) in a
 * real page, in the language and look of the subscribe page named by `page` (the sign-up form adds it to its link).
 */
export const subscriberConfirmRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
          200: { description: 'Confirmed: the lists and the preference-centre link', content: { 'text/html': { schema: Html } } },
          400: { description: 'No code', content: { 'text/html': { schema: Html } } },
          404: { description: 'Unknown or garbled code', content: { 'text/html': { schema: Html } } },
        },
      },
    },
    async (request, reply) => {
      const result = await service.confirmSubscriber(app.ctx, request.query.uniqueId, originOf(request));
      const context = await pageContext(app.ctx, request.query.page, request.headers['accept-language']);
      if (result.outcome !== 'confirmed')
        return sendPage(reply, result.outcome === 'missing' ? 400 : 404, confirmProblemPage(context, result.outcome));
      const lists = (await listsOfSubscribers(app.ctx.db, [result.subscriber.id])).get(result.subscriber.id) ?? [];
      return sendPage(reply, 200, confirmedPage(context, lists, preferencesUrl(app.ctx, result.subscriber)));
    },
  );
};
