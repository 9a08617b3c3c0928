import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { originOf } from './history-origin.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { SubscriberAttributeValue, SubscriberAttributeValueBody, SubscriberValueParams } from './attribute.schemas.js';
import * as service from './attribute.service.js';
import { SubscriberParams } from './subscriber.schemas.js';

const tags = ['subscriber attributes'];

/** The administrator and origin a value change is recorded with in the subscriber's history. */
const editorOf = (request: FastifyRequest): service.ValueEditor => ({ adminId: callerOf(request).id, origin: originOf(request) });

/** A subscriber's attribute values, nested under the subscriber (specification rows 2, 4, 6, 8). */
export const attributeValueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('subscribers', 'You are not allowed to manage subscribers.');

  // Path entities answer 404 before the body is validated (../shared/api/DECISIONS.md § Order of checks).
  const requireTarget = async (request: FastifyRequest) => {
    await service.requireValueTarget(app.ctx, rawPathId(request, 'subscriberId'), rawPathId(request, 'definitionId'));
  };

  app.get(
    '/subscribers/:subscriberId/attributes',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listSubscriberAttributeValues',
        summary: "List a subscriber's attribute values by definition id (after_id is a definition id)",
        params: SubscriberParams,
        querystring: PageQuery,
        response: { 200: Page(SubscriberAttributeValue), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listValues(app.ctx, request.params.subscriberId, afterId, limit);
    },
  );

  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method,
      url: '/subscribers/:subscriberId/attributes/:definitionId',
      onRequest: guard,
      preValidation: requireTarget,
      schema: {
        tags,
        operationId: method === 'POST' ? 'setSubscriberAttributeValue' : 'replaceSubscriberAttributeValue',
        summary: "Create or update a subscriber's attribute value, checked against its type (201 in both cases)",
        params: SubscriberValueParams,
        body: SubscriberAttributeValueBody,
        response: { 201: SubscriberAttributeValue, ...errorResponses(400, 403, 404, 422) },
      },
      handler: async (request, reply) => {
        const { subscriberId, definitionId } = request.params;
        return reply.code(201).send(await service.setValue(app.ctx, subscriberId, definitionId, request.body, editorOf(request)));
      },
    });
  }

  app.get(
    '/subscribers/:subscriberId/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getSubscriberAttributeValue',
        summary: "Read one of a subscriber's attribute values",
        params: SubscriberValueParams,
        response: { 200: SubscriberAttributeValue, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getValue(app.ctx, request.params.subscriberId, request.params.definitionId),
  );

  app.delete(
    '/subscribers/:subscriberId/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteSubscriberAttributeValue',
        summary: "Delete one of a subscriber's attribute values",
        params: SubscriberValueParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteValue(app.ctx, request.params.subscriberId, request.params.definitionId, editorOf(request));
      return reply.code(204).send();
    },
  );
};
