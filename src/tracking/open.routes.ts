import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { trackingLimits } from './address-limiter.js';
import { OpenQuery, PixelResponse } from './open.schemas.js';
import { PIXEL, PIXEL_HEADERS, recordOpen } from './open.service.js';
import { firstValue, requestDetails } from './request-details.js';

/**
 * `GET /t/open.gif?u=…&m=…` (specification row 19), public. Registered under `/api/v2` and, as the same handler, at the
 * root (../shared/api/DECISIONS.md § Paths). The open is queued before the answer is sent, so an answered open is never
 * lost to a graceful stop; writing it is the event buffer's business, off the request path.
 */
export const openPixelRoutes: FastifyPluginAsyncTypebox<{ alias?: boolean }> = async (app, options) => {
  const limits = trackingLimits(app.ctx);
  app.get(
    '/t/open.gif',
    {
      // Every request gets the pixel (row 19), a NUL in u or m too: recordOpen's patterns refuse such values, so
      // nothing reaches the database and nothing is recorded.
      // Answered from memory (the event buffer writes later), so never shed or capped per client (plugins/overload.ts).
      config: { allowNul: true, noDatabase: true },
      schema: {
        tags: ['tracking'],
        operationId: options.alias === true ? 'trackOpenUnprefixed' : 'trackOpen',
        summary: 'Record a campaign open (public; the tracking pixel of campaign mail)',
        description:
          'Always 200 with the pixel, whatever the query holds. With `u` and `m` of a subscriber who was sent the ' +
          'campaign, the open is recorded with user agent, referer and client address (the same subscriber and ' +
          'campaign at most TRACKING_RATE a second per client address); otherwise nothing is recorded.',
        security: [],
        querystring: OpenQuery,
        response: { 200: PixelResponse },
      },
      // Errors rule 7: the pixel never fails, so a malformed query is not a 422 but an unrecorded open.
      validatorCompiler: () => () => true,
    },
    (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const details = requestDetails(request);
      recordOpen(app.ctx, firstValue(query.u), firstValue(query.m), details, limits);
      return reply.code(200).headers(PIXEL_HEADERS).send(PIXEL);
    },
  );
};
