import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { rawPathId } from '../plugins/http.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { IdParam, errorResponses } from '../shared/schemas.js';
import { AdminAttributeValue, AdminAttributeValueBody } from './admin-attribute.schemas.js';
import * as service from './admin-attribute.service.js';

const tags = ['administrator attributes'];
const AdminParams = Type.Object({ adminId: IdParam });
const ValueParams = Type.Object({ adminId: IdParam, definitionId: IdParam });

/** Administrator attribute values, nested under their administrator (specification rows 1, 3, 5, 7). */
export const adminAttributeValueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('settings', 'You are not allowed to manage administrators.');

  // Path entities answer 404 before the body is validated (../shared/api/DECISIONS.md § Order of checks).
  const requireTarget = async (request: FastifyRequest) => {
    await service.requireValueTarget(app.ctx, rawPathId(request, 'adminId'), rawPathId(request, 'definitionId'));
  };

  app.get(
    '/administrators/:adminId/attributes',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listAdminAttributeValues',
        summary: "List an administrator's attribute values by definition id (after_id is a definition id)",
        params: AdminParams,
        querystring: PageQuery,
        response: { 200: Page(AdminAttributeValue), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listValues(app.ctx, request.params.adminId, afterId, limit);
    },
  );

  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method,
      url: '/administrators/:adminId/attributes/:definitionId',
      onRequest: guard,
      preValidation: requireTarget,
      schema: {
        tags,
        operationId: method === 'POST' ? 'setAdminAttributeValue' : 'replaceAdminAttributeValue',
        summary: "Create or update an administrator's attribute value (201 in both cases, as phpList)",
        params: ValueParams,
        body: AdminAttributeValueBody,
        response: { 201: AdminAttributeValue, ...errorResponses(400, 403, 404, 422) },
      },
      handler: async (request, reply) => {
        const { adminId, definitionId } = request.params;
        return reply.code(201).send(await service.setValue(app.ctx, adminId, definitionId, request.body));
      },
    });
  }

  app.get(
    '/administrators/:adminId/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getAdminAttributeValue',
        summary: "Read one of an administrator's attribute values",
        params: ValueParams,
        response: { 200: AdminAttributeValue, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getValue(app.ctx, request.params.adminId, request.params.definitionId),
  );

  app.delete(
    '/administrators/:adminId/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteAdminAttributeValue',
        summary: "Delete one of an administrator's attribute values",
        params: ValueParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteValue(app.ctx, request.params.adminId, request.params.definitionId);
      return reply.code(204).send();
    },
  );
};
