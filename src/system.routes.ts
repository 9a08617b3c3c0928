import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import { PASSWORD_RESET_PAGE } from './config.js';
import { HttpError } from './shared/errors.js';
import { errorResponses } from './shared/schemas.js';

/** Where `GET /` sends a browser: the admin console (the API reference is at /docs). */
export const HOME_PAGE = '/admin/';

/** Pages outside the resource areas: the root, phpList's start page, liveness and readiness. */
export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/',
    {
      schema: {
        tags: ['system'],
        operationId: 'home',
        summary: `Redirects to ${HOME_PAGE}`,
        security: [],
        response: { 302: { type: 'null', description: `Redirect to ${HOME_PAGE}` } },
      },
    },
    async (_request, reply) => reply.redirect(HOME_PAGE, 302),
  );

  app.get(
    '/password-reset',
    {
      schema: {
        tags: ['system'],
        operationId: 'passwordResetPage',
        summary: `Redirects to the console's password-reset page, ${PASSWORD_RESET_PAGE}, with the same query`,
        description:
          'The address of reset links before issue 25 (the default PASSWORD_RESET_URL then), which had no page: links ' +
          'mailed before an upgrade still lead to the page. The token is passed on, not read.',
        security: [],
        querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 256 })) }),
        response: { 302: { type: 'null', description: `Redirect to ${PASSWORD_RESET_PAGE}` }, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const token = request.query.token;
      return reply.redirect(token ? `${PASSWORD_RESET_PAGE}?token=${encodeURIComponent(token)}` : PASSWORD_RESET_PAGE, 302);
    },
  );

  app.get(
    '/api/v2',
    {
      schema: {
        tags: ['system'],
        operationId: 'startPage',
        summary: "phpList's start page: intentionally empty HTML",
        security: [],
        produces: ['text/html'],
        response: { 200: { type: 'string', description: 'An empty HTML page' } },
      },
    },
    async (_request, reply) => reply.type('text/html; charset=utf-8').send('This page has been intentionally left empty.'),
  );

  app.get(
    '/healthz',
    {
      // Never shed or capped (plugins/overload.ts): a busy process is alive.
      config: { noDatabase: true },
      schema: {
        tags: ['system'],
        operationId: 'health',
        summary: 'The process is alive',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['system'],
        operationId: 'ready',
        summary: 'The database answers',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses(503) },
      },
    },
    async (request) => {
      try {
        await app.ctx.db.execute(sql`select 1`);
        return { status: 'ready' as const };
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        throw new HttpError(503, 'Database unreachable');
      }
    },
  );
};
