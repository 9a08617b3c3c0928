import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../shared/schemas.js';
import { STATISTICS_DENIED } from './statistics.schemas.js';
import { subscriberGrowth } from './subscriber-growth.repository.js';
import { SubscriberGrowth, SubscriberGrowthQuery } from './subscriber-growth.schemas.js';

/** Ours, for the console's dashboard: subscribers over time. Same privilege as the other analytics. */
export const subscriberGrowthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/analytics/subscribers/growth',
    {
      onRequest: app.requireAuth('statistics', STATISTICS_DENIED),
      schema: {
        tags: ['statistics'],
        operationId: 'subscriberGrowth',
        summary: 'Subscriber totals, and new and total subscribers per UTC day over the last `days` days (ours)',
        querystring: SubscriberGrowthQuery,
        response: { 200: SubscriberGrowth, ...errorResponses(403) },
      },
    },
    async (request) => subscriberGrowth(app.ctx.db, request.query.days ?? 90),
  );
};
