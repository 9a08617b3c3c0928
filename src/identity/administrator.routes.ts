import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { IdParam, errorResponses } from '../shared/schemas.js';
import { Administrator, CreateAdministratorBody, UpdateAdministratorBody } from './administrator.schemas.js';
import * as service from './administrator.service.js';

const tags = ['administrators'];
const AdminParams = Type.Object({ adminId: IdParam });
// The rules of administrator-rights.ts, for the API reference.
const GRANT_RULE = 'A caller who is not a super user grants only privileges they hold, and never `super_user` (403).';
const MANAGE_RULE =
  'A caller who is not a super user may not change or delete a super user, nor an administrator holding a privilege ' +
  'the caller lacks (403, before the body is read).';

export const administratorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('settings', 'You are not allowed to manage administrators.');

  app.get(
    '/administrators',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listAdministrators',
        summary: 'List administrators (cursor pages)',
        querystring: PageQuery,
        response: { 200: Page(Administrator), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listAdministrators(app.ctx, afterId, limit);
    },
  );

  app.post(
    '/administrators',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createAdministrator',
        summary: 'Create an administrator',
        description: GRANT_RULE,
        body: CreateAdministratorBody,
        response: { 201: Administrator, ...errorResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createAdministrator(app.ctx, request.body, callerOf(request))),
  );

  app.get(
    '/administrators/:adminId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getAdministrator',
        summary: 'Read one administrator',
        params: AdminParams,
        response: { 200: Administrator, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getAdministrator(app.ctx, request.params.adminId),
  );

  app.put(
    '/administrators/:adminId',
    {
      onRequest: guard,
      // The administrator, then whether the caller may change them, before the body (403 before 422).
      preValidation: async (request) => {
        await service.requireManageable(app.ctx, rawPathId(request, 'adminId'), callerOf(request), 'change');
      },
      schema: {
        tags,
        operationId: 'updateAdministrator',
        summary: 'Update an administrator; only the fields (and privilege flags) sent change; `disabled` is ours',
        description: `${MANAGE_RULE} ${GRANT_RULE} Someone else's new password is told to its administrator by mail.`,
        params: AdminParams,
        body: UpdateAdministratorBody,
        response: { 200: Administrator, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => service.updateAdministrator(app.ctx, request.params.adminId, request.body, callerOf(request)),
  );

  app.delete(
    '/administrators/:adminId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteAdministrator',
        summary: 'Delete an administrator (their sessions end; their lists become owner-less)',
        description: MANAGE_RULE,
        params: AdminParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      await service.deleteAdministrator(app.ctx, request.params.adminId, callerOf(request));
      return reply.code(204).send();
    },
  );
};
