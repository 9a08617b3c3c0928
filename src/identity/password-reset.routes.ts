import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../shared/schemas.js';
import { PasswordUpdated, ResetPasswordBody, ResetRequestBody, TokenValidity, ValidateTokenBody } from './password-reset.schemas.js';
import * as service from './password-reset.service.js';

const tags = ['password-reset'];

/** Reference §5.4: public routes, no session. */
export const passwordResetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/password-reset/request',
    {
      schema: {
        tags,
        operationId: 'requestPasswordReset',
        summary: 'Mail an administrator a link to reset their password',
        description:
          "Answers 204 whether or not the address is a (known, enabled) administrator's, so it tells nobody who is " +
          'one; the mail is queued and sent after the answer. 429 with Retry-After past 10 requests from one client ' +
          'address in 15 minutes (and, silently, past 3 for one administrator).',
        security: [],
        body: ResetRequestBody,
        response: { 204: { type: 'null', description: 'Reset mail queued, or nothing to do' }, ...errorResponses(400, 422, 429) },
      },
    },
    async (request, reply) => {
      await service.requestReset(app.ctx, request.body.email, request.ip);
      return reply.code(204).send();
    },
  );

  app.post(
    '/password-reset/validate',
    {
      schema: {
        tags,
        operationId: 'validatePasswordResetToken',
        summary: 'Tell whether a password reset token can still be used',
        security: [],
        body: ValidateTokenBody,
        response: { 200: TokenValidity, ...errorResponses(400, 422) },
      },
    },
    async (request) => ({ valid: await service.validateToken(app.ctx, request.body.token) }),
  );

  app.post(
    '/password-reset/reset',
    {
      schema: {
        tags,
        operationId: 'resetPassword',
        summary: 'Set a new password with a reset token; ends all sessions of the administrator',
        security: [],
        body: ResetPasswordBody,
        response: { 200: PasswordUpdated, ...errorResponses(400, 422) },
      },
    },
    async (request) => {
      await service.resetPassword(app.ctx, request.body.token, request.body.new_password);
      return { message: 'Password updated successfully' as const };
    },
  );
};
