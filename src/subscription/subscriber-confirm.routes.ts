import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { originOf } from './subscriber.routes.js';
import * as service from './subscriber.service.js';

/** Reference §5.5: phpList's exact pages and statuses. */
const PAGES = {
  missing: { status: 400, body: '<h1>Missing confirmation code.</h1>' },
  unknown: { status: 404, body: "<h1>Subscriber isn't found or already confirmed.</h1>" },
  confirmed: { status: 200, body: '<h1>Thank you, your subscription is confirmed!</h1>' },
} as const;

const Html = Type.String({ description: 'A small HTML page' });

/** The public double opt-in page the confirmation mail links to. */
export const subscriberConfirmRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/subscribers/confirm',
    {
      // A mangled code (NUL included) is the HTML 404 page, not the JSON 400 other routes answer.
      config: { allowNul: true },
      // A link mangled into `?uniqueId=a&uniqueId=b` gets the page for its first code, not a JSON 422.
      preValidation: async (request) => {
        const query = request.query as Record<string, unknown>;
        if (Array.isArray(query.uniqueId)) query.uniqueId = String(query.uniqueId[0]);
      },
      schema: {
        tags: ['subscribers'],
        operationId: 'confirmSubscriber',
        summary: 'Confirm a subscription (public; the link of the confirmation mail)',
        security: [],
        querystring: Type.Object({
          uniqueId: Type.Optional(Type.String({ description: "The subscriber's unique id" })),
        }),
        response: {
          200: { content: { 'text/html': { schema: Html } } },
          400: { content: { 'text/html': { schema: Html } } },
          404: { content: { 'text/html': { schema: Html } } },
        },
      },
    },
    async (request, reply) => {
      const outcome = await service.confirmSubscriber(app.ctx, request.query.uniqueId, originOf(request));
      const page = PAGES[outcome];
      return reply.code(page.status).type('text/html; charset=utf-8').send(page.body);
    },
  );
};
