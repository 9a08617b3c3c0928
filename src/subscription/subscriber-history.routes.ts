import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Page } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { HistoryQuery, SubscriberHistory } from './subscriber-history.schemas.js';
import { SubscriberParams } from './subscriber.schemas.js';
import * as service from './subscriber.service.js';

export const subscriberHistoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/subscribers/:subscriberId/history',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to view subscribers.'),
      schema: {
        tags: ['subscribers'],
        operationId: 'listSubscriberHistory',
        summary: "A subscriber's history (cursor pages), filtered by client address, start date or summary",
        params: SubscriberParams,
        querystring: HistoryQuery,
        response: { 200: Page(SubscriberHistory), ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => service.listHistory(app.ctx, request.params.subscriberId, request.query),
  );
};
