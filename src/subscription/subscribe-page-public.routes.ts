import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rawPathId } from '../plugins/http.js';
import { errorResponses } from '../shared/schemas.js';
import {
  PublicSubscribeBody,
  PublicSubscribePage,
  PublicUnsubscribeBody,
  SubscribePageParams,
} from './subscribe-page.schemas.js';
import * as service from './subscribe-page-public.service.js';
import { originOf } from './subscriber.routes.js';

const tags = ['subscribe pages'];

/**
 * The public subscribe-page endpoints (reference Appendix A), without a session. The body keeps its keys as sent,
 * because attribute names are the administrators' words, not field names; `listId` is read as `list_id`.
 */
export const subscribePagePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // An inactive or unknown page is 404 before the body is looked at (order of checks, DECISIONS.md).
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
          'A new or unconfirmed subscriber is sent the confirmation mail. The answer is 204 whether the address was ' +
          'new, known or blacklisted (a blacklisted address is never subscribed); attribute values are stored for ' +
          'subscribers this request creates.',
        security: [],
        params: SubscribePageParams,
        body: PublicSubscribeBody,
        response: { 204: { type: 'null', description: 'Subscribed, or nothing to do' }, ...errorResponses(400, 404, 422) },
      },
    },
    async (request, reply) => {
      await service.subscribe(app.ctx, request.params.pageId, request.body, originOf(request));
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
        summary: "Unsubscribe an address from the page's lists (public; unknown addresses answer 204 too)",
        security: [],
        params: SubscribePageParams,
        body: PublicUnsubscribeBody,
        response: { 204: { type: 'null', description: 'Unsubscribed, or nothing to do' }, ...errorResponses(400, 404, 422) },
      },
    },
    async (request, reply) => {
      await service.unsubscribe(app.ctx, request.params.pageId, request.body.email, originOf(request));
      return reply.code(204).send();
    },
  );
};
