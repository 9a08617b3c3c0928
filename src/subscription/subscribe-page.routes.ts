import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { SubscribePage, SubscribePageBody, SubscribePageDataBody, SubscribePageDataItem, SubscribePageParams } from './subscribe-page.schemas.js';
import * as service from './subscribe-page.service.js';

const tags = ['subscribe pages'];

/** Administration of subscribe pages (reference §5.11), with phpList's privilege messages (§2.4). */
export const subscribePageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const canView = app.requireAuth('subscribers', 'You are not allowed to view subscribe pages.');
  const canCreate = app.requireAuth('subscribers', 'You are not allowed to create subscribe pages.');
  const canUpdate = app.requireAuth('subscribers', 'You are not allowed to update subscribe pages.');
  const canDelete = app.requireAuth('subscribers', 'You are not allowed to delete subscribe pages.');
  const canViewData = app.requireAuth('subscribers', 'You are not allowed to view subscribe page data.');
  const canUpdateData = app.requireAuth('subscribers', 'You are not allowed to update subscribe page data.');
  // 404 comes before the body is validated (../shared/api/DECISIONS.md § Order of checks).
  const pageFirst = async (request: Parameters<typeof rawPathId>[0]) => {
    await service.requirePage(app.ctx, rawPathId(request, 'pageId'));
  };

  app.get(
    '/subscribe-pages',
    {
      onRequest: canView,
      schema: {
        tags,
        operationId: 'listSubscribePages',
        summary: 'All subscribe pages, cursor pages by id',
        querystring: PageQuery,
        response: { 200: Page(SubscribePage), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listPages(app.ctx, afterId, limit);
    },
  );

  app.post(
    '/subscribe-pages',
    {
      onRequest: canCreate,
      schema: {
        tags,
        operationId: 'createSubscribePage',
        summary: 'Create a subscribe page owned by the caller',
        body: SubscribePageBody,
        response: { 201: SubscribePage, ...errorResponses(400, 403, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createPage(app.ctx, request.body, callerOf(request).id)),
  );

  app.get(
    '/subscribe-pages/:pageId',
    {
      onRequest: canView,
      schema: {
        tags,
        operationId: 'getSubscribePage',
        summary: 'Read one subscribe page',
        params: SubscribePageParams,
        response: { 200: SubscribePage, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getPage(app.ctx, request.params.pageId),
  );

  app.put(
    '/subscribe-pages/:pageId',
    {
      onRequest: canUpdate,
      preValidation: pageFirst,
      schema: {
        tags,
        operationId: 'updateSubscribePage',
        summary: 'Replace title and active (absent active → false); the caller becomes the owner',
        params: SubscribePageParams,
        body: SubscribePageBody,
        response: { 200: SubscribePage, ...errorResponses(400, 403, 404, 422) },
      },
    },
    async (request) => service.updatePage(app.ctx, request.params.pageId, request.body, callerOf(request).id),
  );

  app.delete(
    '/subscribe-pages/:pageId',
    {
      onRequest: canDelete,
      schema: {
        tags,
        operationId: 'deleteSubscribePage',
        summary: 'Delete a subscribe page and its data',
        params: SubscribePageParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deletePage(app.ctx, request.params.pageId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/subscribe-pages/:pageId/data',
    {
      onRequest: canViewData,
      schema: {
        tags,
        operationId: 'getSubscribePageData',
        summary: "A page's settings, by name; `id` is the page's id on every item",
        params: SubscribePageParams,
        response: { 200: Type.Array(SubscribePageDataItem), ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getPageData(app.ctx, request.params.pageId),
  );

  app.put(
    '/subscribe-pages/:pageId/data',
    {
      onRequest: canUpdateData,
      preValidation: pageFirst,
      schema: {
        tags,
        operationId: 'setSubscribePageData',
        summary: 'Write one setting of a page (created or replaced by name)',
        description:
          'Settings the public page uses: `lists` (comma-separated ids of the lists it offers; only public lists ' +
          'are offered), `attributes` (comma-separated ids of the subscriber attributes it asks for), and texts ' +
          'such as `intro`, `header`, `footer`, `thankyoupage`, `button`.',
        params: SubscribePageParams,
        body: SubscribePageDataBody,
        response: { 200: SubscribePageDataItem, ...errorResponses(400, 403, 404, 422) },
      },
    },
    async (request) => service.setPageData(app.ctx, request.params.pageId, request.body),
  );
};
