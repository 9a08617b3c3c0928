import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, Id, IdParam } from '../shared/schemas.js';
import { DateTime } from '../shared/schemas.js';
import { SubscriberList } from '../subscription/index.js';
import { Campaign } from './campaign.schemas.js';
import * as service from './list-campaign.service.js';

const tags = ['list–campaign links'];
const MessageParams = Type.Object({ messageId: IdParam });
const ListParams = Type.Object({ listId: IdParam });
const PairParams = Type.Object({ messageId: IdParam, listId: IdParam });

/** Reference §6.15. */
export const ListCampaign = Type.Object({
  id: Id,
  message: Campaign,
  subscriber_list: SubscriberList,
  created_at: DateTime,
  updated_at: DateTime,
});

/** Which lists a campaign goes to (reference §5.14), idempotent per ../shared/api/DECISIONS.md § Resources. */
export const listCampaignRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', 'You are not allowed to manage campaigns.');

  app.get(
    '/list-messages/message/:messageId/lists',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listCampaignLists',
        summary: 'The lists a campaign goes to',
        params: MessageParams,
        response: { 200: Type.Object({ items: Type.Array(SubscriberList) }), ...errorResponses(403, 404) },
      },
    },
    async (request) => ({ items: await service.listsOfCampaign(app.ctx, request.params.messageId) }),
  );

  app.get(
    '/list-messages/list/:listId/messages',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listListCampaigns',
        summary: 'The campaigns that go to a list',
        params: ListParams,
        response: { 200: Type.Object({ items: Type.Array(Campaign) }), ...errorResponses(403, 404) },
      },
    },
    async (request) => ({ items: await service.campaignsOfList(app.ctx, request.params.listId) }),
  );

  app.post(
    '/list-messages/message/:messageId/list/:listId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'linkCampaignToList',
        summary: 'Send a campaign to a list too (linking twice answers the existing link)',
        params: PairParams,
        response: { 201: ListCampaign, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.link(app.ctx, request.params.messageId, request.params.listId)),
  );

  app.delete(
    '/list-messages/message/:messageId/list/:listId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'unlinkCampaignFromList',
        summary: 'Stop sending a campaign to a list (404 when they were not linked)',
        params: PairParams,
        response: { 204: { type: 'null', description: 'Unlinked' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.unlink(app.ctx, request.params.messageId, request.params.listId);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/list-messages/message/:messageId/lists',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'unlinkCampaignFromAllLists',
        summary: 'Unlink a campaign from every list',
        params: MessageParams,
        response: { 204: { type: 'null', description: 'Unlinked' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.unlinkAll(app.ctx, request.params.messageId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/list-messages/message/:messageId/list/:listId/check',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'checkCampaignList',
        summary: 'Whether a campaign goes to a list',
        params: PairParams,
        response: { 200: Type.Object({ is_associated: Type.Boolean() }), ...errorResponses(403, 404) },
      },
    },
    async (request) => ({ is_associated: await service.isLinked(app.ctx, request.params.messageId, request.params.listId) }),
  );
};
