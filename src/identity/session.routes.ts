import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { errorResponses } from '../shared/schemas.js';
import { Administrator } from './administrator.schemas.js';
import { getAdministrator, updateOwnAccount } from './administrator.service.js';
import { LoginBody, SessionParams, SessionToken, UpdateOwnAccountBody } from './session.schemas.js';
import * as service from './session.service.js';

const tags = ['sessions'];

export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sessions',
    {
      schema: {
        tags,
        operationId: 'createSession',
        summary: 'Log in: exchange a login name and password for a session key',
        security: [],
        body: LoginBody,
        response: { 201: SessionToken, ...errorResponses(400, 401, 422, 429) },
      },
    },
    async (request, reply) => {
      const token = await service.login(app.ctx, request.body.login_name, request.body.password, request.ip);
      return reply.code(201).send(token);
    },
  );

  app.delete(
    '/sessions/:sessionId',
    {
      onRequest: app.requireAuth(),
      schema: {
        tags,
        operationId: 'deleteSession',
        summary: 'Log out: end a session of the caller',
        params: SessionParams,
        response: { 204: { type: 'null', description: 'Session ended' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.logout(app.ctx, callerOf(request).id, request.params.sessionId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/sessions/me',
    {
      onRequest: app.requireAuth(),
      schema: {
        tags,
        operationId: 'getSessionAdministrator',
        summary: 'The administrator who owns the session key',
        response: { 200: Administrator, ...errorResponses(403) },
      },
    },
    async (request) => getAdministrator(app.ctx, callerOf(request).id),
  );

  app.put(
    '/sessions/me',
    {
      onRequest: app.requireAuth(),
      schema: {
        tags,
        operationId: 'updateSessionAdministrator',
        summary: 'Change your own e-mail and password (any administrator; the current password is required, wrong guesses are throttled as logins)',
        body: UpdateOwnAccountBody,
        response: { 200: Administrator, ...errorResponses(400, 403, 409, 422, 429) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return updateOwnAccount(app.ctx, caller.id, request.body, { sessionId: caller.sessionId, clientIp: request.ip });
    },
  );
};
