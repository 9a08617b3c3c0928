import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rawPathId } from '../plugins/http.js';
import { errorResponses } from '../shared/schemas.js';
import { PublicSubscribeBody, PublicSubscribePage, PublicUnsubscribeBody, SubscribePageParams } from './subscribe-page.schemas.js';
import * as service from './subscribe-page-public.service.js';
import { originOf } from './history-origin.js';

const tags = ['subscribe pages'];

/**
 * The public subscribe-page endpoints (reference Appendix A), without a session. The body keeps its keys as sent,
 * because attribute names are the administrators' words, not field names; `listId` is read as `list_id`.
 */
export const subscribePagePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // An inactive or unknown page is 404 before the body is looked at (../shared/api/DECISIONS.md § Order of checks).
  const livePageFirst = async (request: Parameters<typeof rawPathId>[0]) => {
    await service.requireLivePage(app.ctx, rawPathId(request, 'pageId'));
  };

  app.get(
    '/public/subscribe-pages/:pageId',
    {
      schema: {
        tags,
        operationId: 'getPublicSubscribePage',
        summary: 'What a subscribe form shows: texts, lists and attributes of an active page (public)',
        security: [],
        params: SubscribePageParams,
        response: { 200: PublicSubscribePage, ...errorResponses(404) },
      },
    },
    async (request) => service.getPublicPage(app.ctx, request.params.pageId),
  );

  app.post(
    '/public/subscribe-pages/:pageId',
    {
      config: { keepBodyKeys: true },
      preValidation: [
        livePageFirst,
        async (request) => {
          const body = request.body as Record<string, unknown> | undefined;
          if (body && typeof body === 'object' && 'listId' in body && !('list_id' in body)) {
            body.list_id = body.listId;
            delete body.listId;
          }
        },
      ],
      schema: {
        tags,
        operationId: 'subscribeOnPage',
        summary: 'Subscribe an address to one of the lists the page offers (public; double opt-in)',
        description:
          'A new or unconfirmed subscriber is sent the confirmation mail; a confirmed one a link that adds the list ' +
          'when opened. The answer is 204 whether the address was new, known or blacklisted (a blacklisted address ' +
          'is never subscribed); attribute values are stored for subscribers this request creates. One sign-up per ' +
          'e-mail address in 10 minutes, SUBSCRIBE_PAGE_CLIENT_LIMIT per client address: 429 with Retry-After.',
        security: [],
        params: SubscribePageParams,
        body: PublicSubscribeBody,
        response: { 204: { type: 'null', description: 'Subscribed, or nothing to do' }, ...errorResponses(400, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      await service.subscribe(app.ctx, request.params.pageId, request.body, originOf(request), request.headers['accept-language']);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/public/subscribe-pages/:pageId',
    {
      preValidation: livePageFirst,
      schema: {
        tags,
        operationId: 'unsubscribeOnPage',
        summary: "Unsubscribe an address from the page's lists (public; needs the subscriber's unsubscribe token)",
        security: [],
        params: SubscribePageParams,
        body: PublicUnsubscribeBody,
        response: { 204: { type: 'null', description: 'Unsubscribed, or nothing to do' }, ...errorResponses(400, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      await service.unsubscribe(app.ctx, request.params.pageId, request.body.email, request.body.token, originOf(request));
      return reply.code(204).send();
    },
  );
};
