import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rawPathId } from '../plugins/http.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { IdParam, errorResponses } from '../shared/schemas.js';
import { AdminAttributeDefinition, CreateAdminAttributeDefinitionBody, UpdateAdminAttributeDefinitionBody } from './admin-attribute.schemas.js';
import * as service from './admin-attribute.service.js';

const tags = ['administrator attributes'];
const DefinitionParams = Type.Object({ definitionId: IdParam });

/**
 * Administrator attribute definitions. `/administrators/attributes` is a static segment, which Fastify's router
 * prefers over `/administrators/:adminId`, so the two never collide.
 */
export const adminAttributeDefinitionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('settings', 'You are not allowed to manage administrators.');

  app.get(
    '/administrators/attributes',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listAdminAttributeDefinitions',
        summary: 'List administrator attribute definitions (cursor pages)',
        querystring: PageQuery,
        response: { 200: Page(AdminAttributeDefinition), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listDefinitions(app.ctx, afterId, limit);
    },
  );

  app.post(
    '/administrators/attributes',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createAdminAttributeDefinition',
        summary: 'Create an administrator attribute definition (type defaults to textline)',
        body: CreateAdminAttributeDefinitionBody,
        response: { 201: AdminAttributeDefinition, ...errorResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createDefinition(app.ctx, request.body)),
  );

  app.get(
    '/administrators/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getAdminAttributeDefinition',
        summary: 'Read one administrator attribute definition',
        params: DefinitionParams,
        response: { 200: AdminAttributeDefinition, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getDefinition(app.ctx, request.params.definitionId),
  );

  app.put(
    '/administrators/attributes/:definitionId',
    {
      onRequest: guard,
      preValidation: async (request) => {
        await service.requireDefinition(app.ctx, rawPathId(request, 'definitionId'));
      },
      schema: {
        tags,
        operationId: 'updateAdminAttributeDefinition',
        summary: 'Update an administrator attribute definition; fields other than name change only when sent',
        params: DefinitionParams,
        body: UpdateAdminAttributeDefinitionBody,
        response: { 200: AdminAttributeDefinition, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => service.updateDefinition(app.ctx, request.params.definitionId, request.body),
  );

  app.delete(
    '/administrators/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteAdminAttributeDefinition',
        summary: "Delete an administrator attribute definition and every administrator's value for it",
        params: DefinitionParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteDefinition(app.ctx, request.params.definitionId);
      return reply.code(204).send();
    },
  );
};
