import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { ListBody, LISTS_DENIED, ListParams, SubscriberList } from './list.schemas.js';
import * as service from './list.service.js';

const tags = ['lists'];

export const listRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('subscribers', LISTS_DENIED);

  app.get(
    '/lists',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listLists',
        summary: "List the caller's lists and the owner-less ones (cursor pages)",
        querystring: PageQuery,
        response: { 200: Page(SubscriberList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listLists(app.ctx, callerOf(request).id, afterId, limit);
    },
  );

  app.post(
    '/lists',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createList',
        summary: 'Create a list owned by the caller',
        body: ListBody,
        response: { 201: SubscriberList, ...errorResponses(400, 403, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createList(app.ctx, request.body, callerOf(request).id)),
  );

  app.get(
    '/lists/:listId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getList',
        summary: 'Read one list (owner or owner-less only)',
        params: ListParams,
        response: { 200: SubscriberList, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getList(app.ctx, request.params.listId, callerOf(request).id),
  );

  app.put(
    '/lists/:listId',
    {
      onRequest: guard,
      // 404 and ownership come before the body is validated (../shared/api/DECISIONS.md § Order of checks).
      preValidation: async (request) => {
        await service.requireOwnedList(app.ctx, rawPathId(request, 'listId'), callerOf(request).id);
      },
      schema: {
        tags,
        operationId: 'updateList',
        summary: 'Replace a list: every field is written, absent ones take their default',
        params: ListParams,
        body: ListBody,
        response: { 200: SubscriberList, ...errorResponses(400, 403, 404, 422) },
      },
    },
    async (request) => service.updateList(app.ctx, request.params.listId, request.body, callerOf(request).id),
  );

  app.delete(
    '/lists/:listId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteList',
        summary: 'Delete a list and its subscriptions (the subscribers stay)',
        params: ListParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteList(app.ctx, request.params.listId, callerOf(request).id);
      return reply.code(204).send();
    },
  );
};
