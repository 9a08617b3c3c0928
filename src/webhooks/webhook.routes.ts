import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../shared/schemas.js';
import {
  DeliveriesQuery,
  DeliveryPage,
  Webhook,
  WebhookCreateBody,
  WebhookParams,
  WebhookTestResult,
  WebhookUpdateBody,
  WebhookWithSecret,
} from './webhook.schemas.js';
import * as service from './webhook.service.js';

const tags = ['webhooks'];
export const WEBHOOKS_DENIED = 'You are not allowed to manage webhooks.';

/** Outgoing webhooks (issue 27; docs/api.md, "Webhooks"). Administrators with the `settings` privilege. */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('settings', WEBHOOKS_DENIED);

  app.get(
    '/webhooks',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'Every webhook endpoint (Mailroom addition)',
        response: { 200: Type.Array(Webhook), ...errorResponses(401, 403) },
      },
    },
    async () => service.listWebhooks(app.ctx),
  );

  app.post(
    '/webhooks',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Register an endpoint; the answer holds its signing secret, shown only this once',
        description:
          'The url must resolve to public addresses only (loopback, private and link-local ones are refused with 422 ' +
          'unless WEBHOOK_ALLOW_PRIVATE=1). Events are signed as the Standard Webhooks specification says.',
        body: WebhookCreateBody,
        response: { 201: WebhookWithSecret, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createWebhook(app.ctx, request.body)),
  );

  app.get(
    '/webhooks/:webhookId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Read one endpoint (without its secret)',
        params: WebhookParams,
        response: { 200: Webhook, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => service.getWebhook(app.ctx, request.params.webhookId),
  );

  app.patch(
    '/webhooks/:webhookId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Change the url, the events or whether it is enabled (absent fields stay)',
        params: WebhookParams,
        body: WebhookUpdateBody,
        response: { 200: Webhook, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => service.updateWebhook(app.ctx, request.params.webhookId, request.body),
  );

  app.delete(
    '/webhooks/:webhookId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete an endpoint and its deliveries',
        params: WebhookParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteWebhook(app.ctx, request.params.webhookId);
      return reply.code(204).send();
    },
  );

  app.post(
    '/webhooks/:webhookId/secret',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret with a new one, answered this once',
        params: WebhookParams,
        response: { 200: WebhookWithSecret, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => service.rotateSecret(app.ctx, request.params.webhookId),
  );

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: "The endpoint's deliveries, newest first, in keyset pages (`before` = the previous next_cursor)",
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryPage, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => service.listDeliveries(app.ctx, request.params.webhookId, request.query),
  );

  app.post(
    '/webhooks/:webhookId/test',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'POST a signed `webhook.test` event now and answer how the endpoint took it (nothing stored)',
        params: WebhookParams,
        response: { 200: WebhookTestResult, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => service.pingWebhook(app.ctx, request.params.webhookId),
  );
};
