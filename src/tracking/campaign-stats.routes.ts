import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Bounce, CampaignParams } from '../messaging/index.js';
import { Page, PageQuery } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { CampaignDomains, CampaignDomainsQuery } from './campaign-domains.schemas.js';
import { campaignDomains } from './campaign-domains.service.js';
import { CampaignStats } from './campaign-stats.schemas.js';
import { campaignBounces, campaignStats } from './campaign-stats.service.js';
import { STATISTICS_DENIED } from './statistics.schemas.js';

/**
 * `GET /api/v2/campaigns/{messageId}/stats`, `…/bounces` and `…/domains` (the campaign report's figures, bounces and
 * recipient domains):
 * authentication, the statistics privilege, then the campaign (404).
 */
export const campaignStatsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('statistics', STATISTICS_DENIED);
  app.get(
    '/campaigns/:messageId/stats',
    {
      onRequest: guard,
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

  app.get(
    '/campaigns/:messageId/bounces',
    {
      onRequest: guard,
      schema: {
        tags: ['statistics'],
        operationId: 'getCampaignBounces',
        summary: 'The bounces matched to one campaign, cursor pages by id, each as GET /bounces lists it (Mailroom addition)',
        params: CampaignParams,
        querystring: PageQuery,
        response: { 200: Page(Bounce), ...errorResponses(403, 404) },
      },
    },
    async (request) => campaignBounces(app.ctx, request.params.messageId, request.query),
  );

  app.get(
    '/campaigns/:messageId/domains',
    {
      onRequest: guard,
      config: { strictLimit: true },
      schema: {
        tags: ['statistics'],
        operationId: 'getCampaignDomains',
        summary:
          "One campaign's recipients by domain (sent, failed, opened, clicked, bounced), from a snapshot refreshed in the background (Mailroom addition)",
        params: CampaignParams,
        querystring: CampaignDomainsQuery,
        response: { 200: CampaignDomains, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => campaignDomains(app.ctx, request.params.messageId, request.query.limit),
  );
};
