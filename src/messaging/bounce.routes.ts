import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { callerOf } from '../plugins/auth.js';
import { Page, cursorOf } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { Bounce, BounceDetail, BounceListQuery, BounceParams, CampaignBounces, MAX_TOTALS, SubscriberBounces } from './bounce.schemas.js';
import * as service from './bounce.service.js';

const tags = ['bounces'];
export const BOUNCES_DENIED = 'You are not allowed to manage bounces.';

export const bounceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', BOUNCES_DENIED);

  app.get(
    '/bounces',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listBounces',
        summary: 'List received bounces (cursor pages), optionally of one status or one subscriber',
        querystring: BounceListQuery,
        response: { 200: Page(Bounce), ...errorResponses(403, 422) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      const { status, subscriber_id: subscriberId } = request.query;
      return service.listBounces(app.ctx, { status, subscriberId }, afterId, limit);
    },
  );

  app.get(
    '/bounces/by/campaign',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'bounceTotalsByCampaign',
        summary: `Bounces per campaign (the caller's and owner-less ones), most first, at most ${MAX_TOTALS}`,
        response: { 200: Type.Array(CampaignBounces), ...errorResponses(403) },
      },
    },
    async (request) => service.totalsByCampaign(app.ctx, callerOf(request).id),
  );

  app.get(
    '/bounces/by/subscriber',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'bounceTotalsBySubscriber',
        summary: `Bounces per subscriber, most first, at most ${MAX_TOTALS}`,
        response: { 200: Type.Array(SubscriberBounces), ...errorResponses(403) },
      },
    },
    async () => service.totalsBySubscriber(app.ctx),
  );

  app.get(
    '/bounces/:bounceId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getBounce',
        summary: 'Read one bounce with the message as received: header and body, each cut at 262,144 characters (Mailroom addition)',
        params: BounceParams,
        response: { 200: BounceDetail, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getBounce(app.ctx, request.params.bounceId),
  );

  app.delete(
    '/bounces/:bounceId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteBounce',
        summary: 'Delete a bounce record',
        params: BounceParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteBounce(app.ctx, request.params.bounceId);
      return reply.code(204).send();
    },
  );
};
