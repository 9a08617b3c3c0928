import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rawPathId } from '../plugins/http.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { AttributeDefinition, AttributeDefinitionBody, DefinitionParams } from './attribute.schemas.js';
import * as service from './attribute.service.js';

const tags = ['subscriber attributes'];

/**
 * Subscriber attribute definitions: the `settings` privilege (../shared/api/DECISIONS.md § Authentication and
 * authorization lists attribute definitions there).
 */
export const attributeDefinitionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('settings', 'You are not allowed to manage attribute definitions.');

  app.get(
    '/attributes',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listAttributeDefinitions',
        summary: 'List subscriber attribute definitions with their options (cursor pages)',
        querystring: PageQuery,
        response: { 200: Page(AttributeDefinition), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listDefinitions(app.ctx, afterId, limit);
    },
  );

  app.post(
    '/attributes',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createAttributeDefinition',
        summary: 'Create a subscriber attribute definition, with options for select, radio, checkboxgroup, checkbox',
        body: AttributeDefinitionBody,
        response: { 201: AttributeDefinition, ...errorResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createDefinition(app.ctx, request.body)),
  );

  app.get(
    '/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getAttributeDefinition',
        summary: 'Read one subscriber attribute definition with its options',
        params: DefinitionParams,
        response: { 200: AttributeDefinition, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getDefinition(app.ctx, request.params.definitionId),
  );

  app.put(
    '/attributes/:definitionId',
    {
      onRequest: guard,
      preValidation: async (request) => {
        await service.requireDefinition(app.ctx, rawPathId(request, 'definitionId'));
      },
      schema: {
        tags,
        operationId: 'updateAttributeDefinition',
        summary: 'Update a subscriber attribute definition; `options`, when sent, is the full set (sync rules)',
        description:
          'The type may change only within its family: option types (select, radio, checkboxgroup, checkbox) among ' +
          'themselves, the others among themselves. An option left out is deleted unless a subscriber value uses it.',
        params: DefinitionParams,
        body: AttributeDefinitionBody,
        response: { 200: AttributeDefinition, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => service.updateDefinition(app.ctx, request.params.definitionId, request.body),
  );

  app.delete(
    '/attributes/:definitionId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteAttributeDefinition',
        summary: "Delete a subscriber attribute definition, its options and every subscriber's value for it",
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
