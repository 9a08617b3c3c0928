import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { Page } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { Campaign, CampaignBody, CampaignListItem, CampaignListQuery, CampaignParams } from './campaign.schemas.js';
import * as service from './campaign.service.js';

const tags = ['campaigns'];

export const campaignRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', 'You are not allowed to manage campaigns.');
  // Specification rows 11 and 12: a missing campaign is 404 before authentication is checked.
  const existsFirst = async (request: FastifyRequest) => {
    await service.requireCampaign(app.ctx, rawPathId(request, 'messageId'));
  };

  app.get(
    '/campaigns',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listCampaigns',
        summary: "The caller's campaigns, cursor pages by id, optionally by subject substring or status",
        description: 'Each item is the Message of reference §6.14 plus `figures` (ours): its lists and counters.',
        querystring: CampaignListQuery,
        response: { 200: Page(CampaignListItem), ...errorResponses(403) },
      },
    },
    async (request) => service.listCampaigns(app.ctx, callerOf(request).id, request.query),
  );

  app.post(
    '/campaigns',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createCampaign',
        summary: 'Create a campaign (always a draft; metadata.status is ignored)',
        body: CampaignBody,
        response: { 201: Campaign, ...errorResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createCampaign(app.ctx, callerOf(request).id, request.body)),
  );

  app.get(
    '/campaigns/:messageId',
    {
      onRequest: [existsFirst, guard],
      schema: {
        tags,
        operationId: 'getCampaign',
        summary: 'Read a campaign (404 before the authentication check, specification row 11)',
        params: CampaignParams,
        response: { 200: Campaign, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getCampaign(app.ctx, request.params.messageId),
  );

  app.put(
    '/campaigns/:messageId',
    {
      onRequest: [existsFirst, guard],
      schema: {
        tags,
        operationId: 'updateCampaign',
        summary: "Replace a campaign's groups (404 before the authentication check, specification row 12)",
        description: 'Status never changes here (PATCH …/status). A campaign being sent or sent cannot be edited (409).',
        params: CampaignParams,
        body: CampaignBody,
        response: { 200: Campaign, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => service.updateCampaign(app.ctx, request.params.messageId, request.body),
  );

  app.delete(
    '/campaigns/:messageId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteCampaign',
        summary: 'Delete a campaign with its list links, deliveries and statistics (authentication first)',
        params: CampaignParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      await service.deleteCampaign(app.ctx, request.params.messageId);
      return reply.code(204).send();
    },
  );

  app.post(
    '/campaigns/:messageId/copy',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'copyCampaign',
        summary: 'Copy a campaign into a new draft owned by the caller (lists are not copied)',
        params: CampaignParams,
        response: { 201: Campaign, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.copyCampaign(app.ctx, request.params.messageId, callerOf(request).id)),
  );
};
