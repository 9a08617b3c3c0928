import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { Page } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { originOf } from './history-origin.js';
import { newSubscriberHtmlEmail } from './subscriber-defaults.js';
import {
  CreateSubscriberBody,
  Subscriber,
  SubscriberDefaults,
  SubscriberListQuery,
  SubscriberParams,
  UpdateSubscriberBody,
} from './subscriber.schemas.js';
import * as service from './subscriber.service.js';

const tags = ['subscribers'];

export const subscriberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const canView = app.requireAuth('subscribers', 'You are not allowed to view subscribers.');

  app.get(
    '/subscribers',
    {
      onRequest: canView,
      schema: {
        tags,
        operationId: 'listSubscribers',
        summary: 'List subscribers (cursor pages), filtered by state, a substring of a column or a list',
        querystring: SubscriberListQuery,
        response: { 200: Page(Subscriber), ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => service.listSubscribers(app.ctx, request.query),
  );

  app.post(
    '/subscribers',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to create subscribers.'),
      schema: {
        tags,
        operationId: 'createSubscriber',
        summary: 'Create a subscriber; with request_confirmation, unconfirmed and sent a confirmation link',
        body: CreateSubscriberBody,
        response: { 201: Subscriber, ...errorResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const created = await service.createSubscriber(app.ctx, request.body, callerOf(request).id, originOf(request));
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/subscribers/defaults',
    {
      onRequest: canView,
      schema: {
        tags,
        operationId: 'getSubscriberDefaults',
        summary: 'What a new subscriber gets when its creator does not say (ours: the console preselects it)',
        description:
          '`html_email`: the SUBSCRIBER_HTML_DEFAULT setting, which the import, list members created by ' +
          "`create_unknown` and the sign-up forms apply. `POST /subscribers` without `html_email` keeps phpList's false.",
        response: { 200: SubscriberDefaults, ...errorResponses(403) },
      },
    },
    async () => ({ html_email: newSubscriberHtmlEmail(app.ctx) }),
  );

  app.get(
    '/subscribers/:subscriberId',
    {
      onRequest: canView,
      schema: {
        tags,
        operationId: 'getSubscriber',
        summary: 'Read one subscriber, with their lists and history',
        params: SubscriberParams,
        response: { 200: Subscriber, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getSubscriber(app.ctx, request.params.subscriberId),
  );

  app.put(
    '/subscribers/:subscriberId',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to update subscribers.'),
      preValidation: async (request) => {
        await service.requireSubscriber(app.ctx, rawPathId(request, 'subscriberId'));
      },
      schema: {
        tags,
        operationId: 'updateSubscriber',
        summary: 'Update a subscriber: email required, the flags sent change, the others stay',
        params: SubscriberParams,
        body: UpdateSubscriberBody,
        response: { 200: Subscriber, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => service.updateSubscriber(app.ctx, request.params.subscriberId, request.body, callerOf(request).id, originOf(request)),
  );

  app.delete(
    '/subscribers/:subscriberId',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to delete subscribers.'),
      schema: {
        tags,
        operationId: 'deleteSubscriber',
        summary: 'Delete a subscriber with their subscriptions, attribute values and history (blacklist entries stay)',
        params: SubscriberParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteSubscriber(app.ctx, request.params.subscriberId);
      return reply.code(204).send();
    },
  );

  app.post(
    '/subscribers/:subscriberId/reset-bounce-count',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to manage Subscribers.'),
      schema: {
        tags,
        operationId: 'resetSubscriberBounceCount',
        summary: "Set a subscriber's bounce count to 0",
        params: SubscriberParams,
        response: { 200: Subscriber, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.resetBounceCount(app.ctx, request.params.subscriberId, callerOf(request).id, originOf(request)),
  );
};
