import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Page } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import {
  AnalyticsPageQuery,
  CampaignStatistics,
  Dashboard,
  DomainConfirmation,
  DomainConfirmationQuery,
  LocalPartsQuery,
  TopDomains,
  TopDomainsQuery,
  TopLocalParts,
  ViewOpens,
  STATISTICS_DENIED,
} from './statistics.schemas.js';
import * as localParts from './local-parts.service.js';
import * as service from './statistics.service.js';

const tags = ['statistics'];

/**
 * phpList reads `min_subscribers` with a PHP int cast, so nonsense is 0, never a 422 (reference §5.19); `limit` and
 * `after_id` are already read that way for every route (plugins/http.ts).
 */
async function lenientMinimum(request: FastifyRequest) {
  const query = request.query as Record<string, unknown>;
  if (!('min_subscribers' in query)) return;
  const raw = Array.isArray(query.min_subscribers) ? String(query.min_subscribers[0]) : String(query.min_subscribers);
  const match = /^\s*-?\d+/.exec(raw);
  query.min_subscribers = match ? Math.min(Math.max(0, Number.parseInt(match[0], 10)), 2_147_483_647) : 0;
}

/** The six analytics endpoints of reference §5.19, all behind the statistics privilege. */
export const statisticsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('statistics', STATISTICS_DENIED);

  app.get(
    '/analytics/campaigns',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'campaignStatistics',
        summary: 'Sent, bounces, forwards, views and clicks of every campaign, cursor pages by id',
        querystring: AnalyticsPageQuery,
        response: { 200: Page(CampaignStatistics), ...errorResponses(403) },
      },
    },
    async (request) => service.campaignStatistics(app.ctx, request.query),
  );

  app.get(
    '/analytics/view-opens',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'viewOpenStatistics',
        summary: 'Unique views and open rate of every campaign, cursor pages by id',
        querystring: AnalyticsPageQuery,
        response: { 200: Page(ViewOpens), ...errorResponses(403) },
      },
    },
    async (request) => service.viewOpens(app.ctx, request.query),
  );

  app.get(
    '/analytics/domains/top',
    {
      onRequest: guard,
      preValidation: lenientMinimum,
      schema: {
        tags,
        operationId: 'topDomains',
        summary: 'The domains with the most subscribers',
        querystring: TopDomainsQuery,
        response: { 200: TopDomains, ...errorResponses(403) },
      },
    },
    async (request) => service.topDomains(app.ctx, request.query),
  );

  app.get(
    '/analytics/domains/confirmation',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'domainConfirmationStatistics',
        summary: 'Confirmed, unconfirmed and blacklisted subscribers per domain, most unconfirmed first',
        querystring: DomainConfirmationQuery,
        response: { 200: DomainConfirmation, ...errorResponses(403) },
      },
    },
    async (request) => service.domainConfirmation(app.ctx, request.query.limit ?? 50),
  );

  app.get(
    '/analytics/local-parts/top',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'topLocalParts',
        summary: 'The most common local parts (before the @) of subscriber addresses',
        querystring: LocalPartsQuery,
        response: { 200: TopLocalParts, ...errorResponses(403) },
      },
    },
    async (request) => localParts.topLocalParts(app.ctx, request.query.limit ?? 25),
  );

  app.get(
    '/analytics/dashboard',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'statisticsDashboard',
        summary: 'Summary figures, recent campaigns and daily opens and clicks of the last 30 days',
        response: { 200: Dashboard, ...errorResponses(403) },
      },
    },
    async () => service.dashboard(app.ctx),
  );
};
