import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CampaignParams } from '../messaging/campaign.schemas.js';
import { errorResponses } from '../shared/schemas.js';
import { CampaignStats } from './campaign-stats.schemas.js';
import { campaignStats } from './campaign-stats.service.js';
import { STATISTICS_DENIED } from './statistics.schemas.js';

/** `GET /api/v2/campaigns/{messageId}/stats`: authentication, the statistics privilege, then the campaign (404). */
export const campaignStatsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/campaigns/:messageId/stats',
    {
      onRequest: app.requireAuth('statistics', STATISTICS_DENIED),
      schema: {
        tags: ['statistics'],
        operationId: 'getCampaignStats',
        summary: "One campaign's deliveries by status, opens and clicks (human and total), per hour and per link",
        params: CampaignParams,
        response: { 200: CampaignStats, ...errorResponses(403, 404) },
      },
    },
    async (request) => campaignStats(app.ctx, request.params.messageId),
  );
};
