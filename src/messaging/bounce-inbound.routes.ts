import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../shared/errors.js';
import { errorResponses } from '../shared/schemas.js';
import { InboundBounceResult } from './bounce-inbound.schemas.js';
import * as service from './bounce-inbound.service.js';

const RAW_TYPES = ['message/rfc822', 'text/plain', 'application/octet-stream'];

/**
 * `POST /bounces/inbound`: a raw bounce message, for a mail server's pipe (`curl --data-binary @- …`) or a relay's
 * webhook. Its own token instead of a session. The body is read as bytes here only: this plugin's scope replaces
 * the JSON parsers of the rest of the API.
 */
export const bounceInboundRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { maxSize } = app.ctx.config.bounces;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(RAW_TYPES, { parseAs: 'buffer', bodyLimit: maxSize }, (_request, body, done) => done(null, body));
  // A client that names no content type at all (`curl --data-binary` without -H) is read as raw bytes too.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxSize }, (request: FastifyRequest, body, done) => {
    if (request.headers['content-type']) {
      done(new HttpError(415, `Unsupported content type: send the message as ${RAW_TYPES.join(', ')}.`));
    } else {
      done(null, body);
    }
  });

  app.post(
    '/bounces/inbound',
    {
      bodyLimit: maxSize,
      // The body is bytes, not JSON: the schema below documents it, the service checks it (422 saying why).
      validatorCompiler: () => () => true,
      onRequest: async (request) => {
        service.checkInboundToken(app.ctx, request.headers.authorization, request.headers['x-bounce-token']);
      },
      schema: {
        tags: ['bounces'],
        operationId: 'receiveBounce',
        summary: 'Process one bounce message (a DSN, an abuse report, or any returned mail), sent raw',
        description:
          'The body is the whole RFC 5322 message. Authenticated by `BOUNCE_INBOUND_TOKEN` as `Authorization: Bearer <token>` ' +
          'or `X-Bounce-Token: <token>` (no session). The bounce is matched to its delivery, stored once (a message sent twice ' +
          'is a `duplicate`), and the bounce rules and thresholds are applied; the answer says what was done.',
        consumes: RAW_TYPES,
        querystring: Type.Object({
          recipient: Type.Optional(
            Type.String({
              maxLength: 320,
              description:
                'The envelope recipient the bounce was delivered to (a pipe\'s `${recipient}`, a relay webhook\'s "to"). With ' +
                '`BOUNCE_VERP=1` it carries the signed delivery token and is matched first; optional (the `To`, `Delivered-To` and ' +
                '`X-Original-To` headers are looked at too).',
              examples: ['bounces+aaaaaaaaaaaaaaaaaaaaaaaa@example.com'],
            }),
          ),
        }),
        body: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The whole bounce message, as received' }),
        security: [{ bearer: [] }],
        response: { 202: InboundBounceResult, ...errorResponses(403, 404, 413, 415, 422) },
      },
    },
    async (request, reply) => reply.code(202).send(await service.receiveBounce(app.ctx, request.body, request.query.recipient)),
  );
};
