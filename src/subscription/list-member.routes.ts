import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { AddMembersBody, MemberCount, RemoveMembersQuery, Subscription } from './list-member.schemas.js';
import { Subscriber } from './subscriber.schemas.js';
import { originOf } from './history-origin.js';
import * as service from './list-member.service.js';
import { LISTS_DENIED, ListParams } from './list.schemas.js';
import { requireOwnedList } from './list.service.js';

const tags = ['list members'];

export const listMemberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('subscribers', LISTS_DENIED);
  // 404 and ownership come before the body or query is validated (../shared/api/DECISIONS.md § Order of checks).
  const ownedListFirst = async (request: Parameters<typeof callerOf>[0]) => {
    await requireOwnedList(app.ctx, rawPathId(request, 'listId'), callerOf(request).id);
  };

  app.get(
    '/lists/:listId/subscribers',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listListMembers',
        summary: 'Subscribers of a list, full objects, cursor pages by subscriber id',
        params: ListParams,
        querystring: PageQuery,
        response: { 200: Page(Subscriber), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listMembers(app.ctx, request.params.listId, afterId, limit);
    },
  );

  for (const [url, operationId] of [
    ['/lists/:listId/subscribers/count', 'countListMembers'],
    ['/lists/:listId/count', 'countListMembersAlias'],
  ] as const) {
    app.get(
      url,
      {
        onRequest: guard,
        schema: {
          tags,
          operationId,
          summary:
            operationId === 'countListMembers'
              ? 'Number of subscribers of a list'
              : 'Number of subscribers of a list (alias the phpList JS client calls)',
          params: ListParams,
          response: { 200: MemberCount, ...errorResponses(403, 404) },
        },
      },
      async (request) => service.countMembers(app.ctx, request.params.listId),
    );
  }

  app.post(
    '/lists/:listId/subscribers',
    {
      onRequest: guard,
      preValidation: ownedListFirst,
      schema: {
        tags,
        operationId: 'addListMembers',
        summary: 'Subscribe existing subscribers, by e-mail address, to a list',
        description:
          'An address without a subscriber makes the request a 404 naming it (phpList), and nothing is stored or sent. ' +
          'Addresses already subscribed are answered unchanged. ' +
          'Blacklisted subscribers (blacklist entry or subscriber flag) are skipped: not subscribed, ' +
          'and absent from the answer. With `auto_confirm: true` the subscribers are confirmed; otherwise each ' +
          'unconfirmed subscriber newly added gets a mail with the link ' +
          '`<PUBLIC_URL>/api/v2/subscribers/confirm?uniqueId=<unique_id>`.',
        params: ListParams,
        body: AddMembersBody,
        response: { 201: Type.Array(Subscription), ...errorResponses(400, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const result = await service.addMembers(app.ctx, request.params.listId, callerOf(request).id, request.body, originOf(request));
      return reply.code(201).send(result);
    },
  );

  app.delete(
    '/lists/:listId/subscribers',
    {
      onRequest: guard,
      preValidation: [
        ownedListFirst,
        async (request) => {
          // phpList's PHP-style array `emails[]=…`; the plain `emails=…` is read the same way.
          const query = request.query as Record<string, unknown>;
          if ('emails[]' in query) {
            const given = query['emails[]'];
            const extra = query.emails === undefined ? [] : [query.emails].flat();
            query.emails = [...[given].flat(), ...extra];
            delete query['emails[]'];
          }
        },
      ],
      schema: {
        tags,
        operationId: 'removeListMembers',
        summary: 'Unsubscribe e-mail addresses from a list (?emails[]=a@x&emails[]=b@y); unknown ones are ignored',
        params: ListParams,
        querystring: RemoveMembersQuery,
        response: { 204: { type: 'null', description: 'Unsubscribed' }, ...errorResponses(403, 404, 422) },
      },
    },
    async (request, reply) => {
      await service.removeMembers(app.ctx, request.params.listId, callerOf(request).id, request.query.emails, originOf(request));
      return reply.code(204).send();
    },
  );
};
