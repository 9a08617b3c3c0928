import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { Page } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import {
  AddToBlacklistBody,
  BlacklistCheck,
  BlacklistEntry,
  BlacklistListQuery,
  EmailParams,
  ListedBlacklistEntry,
  NotBlacklisted,
} from './blacklist.schemas.js';
import * as service from './blacklist.service.js';

const tags = ['blacklist'];

/** The path e-mail is any text, as in phpList (no format check): an address never listed is simply not found. */
export const blacklistRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/blacklist',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to view blacklist information.'),
      schema: {
        tags,
        operationId: 'listBlacklist',
        summary: 'Blacklist entries with their date and reason (cursor pages), optionally by a substring of the address',
        querystring: BlacklistListQuery,
        response: { 200: Page(ListedBlacklistEntry), ...errorResponses(403, 422) },
      },
    },
    async (request) => service.list(app.ctx, request.query),
  );

  app.get(
    '/blacklist/check/:email',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to check blacklisted emails.'),
      schema: {
        tags,
        operationId: 'checkBlacklist',
        summary: 'Whether an address is blacklisted, and why',
        params: EmailParams,
        response: { 200: BlacklistCheck, ...errorResponses(403) },
      },
    },
    async (request) => service.check(app.ctx, request.params.email),
  );

  app.post(
    '/blacklist/add',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to add emails to blacklist.'),
      schema: {
        tags,
        operationId: 'addToBlacklist',
        summary: 'Blacklist an address and flag its subscriber; adding again answers the existing entry',
        body: AddToBlacklistBody,
        response: { 201: BlacklistEntry, ...errorResponses(400, 403, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.add(app.ctx, request.body, callerOf(request).id)),
  );

  app.get(
    '/blacklist/info/:email',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to view blacklist information.'),
      schema: {
        tags,
        operationId: 'getBlacklistInfo',
        summary: 'The blacklist entry of an address',
        params: EmailParams,
        response: { 200: BlacklistEntry, 403: errorResponses(403)[403]!, 404: NotBlacklisted },
      },
    },
    async (request, reply) => {
      const entry = await service.info(app.ctx, request.params.email);
      if (!entry) {
        const message = `Email ${request.params.email} is not blacklisted`;
        return reply.code(404).send({ message, error: message });
      }
      return entry;
    },
  );

  app.delete(
    '/blacklist/remove/:email',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to remove emails from blacklist.'),
      schema: {
        tags,
        operationId: 'removeFromBlacklist',
        summary: 'Remove an address from the blacklist and clear its subscriber flag',
        params: EmailParams,
        response: { 204: { type: 'null', description: 'Removed (also when it was not blacklisted)' }, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      await service.remove(app.ctx, request.params.email);
      return reply.code(204).send();
    },
  );
};
