import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireCampaign } from '../messaging/index.js';
import { rawPathId } from '../plugins/http.js';
import { Type } from '@sinclair/typebox';
import { errorResponses, Message, ValidationFailure } from '../shared/schemas.js';
import { ForwardBody, ForwardParams, ForwardResult } from './forward.schemas.js';
import * as service from './forward.service.js';

/** `POST /email-forward/{messageId}` (reference §5.17), public: the forwarder's uid is the credential. */
export const forwardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/email-forward/:messageId',
    {
      // Reference §2.6: an unknown campaign is 404 before the body is looked at.
      preValidation: async (request) => {
        await requireCampaign(app.ctx, rawPathId(request, 'messageId'));
      },
      schema: {
        tags: ['campaigns'],
        operationId: 'forwardCampaign',
        summary: 'Forward a campaign to friends, as a subscriber who was sent it (public)',
        description:
          'At most FORWARD_EMAIL_COUNT distinct recipients per request, a note of at most twice ' +
          'FORWARD_PERSONAL_NOTE_SIZE characters (0: any), and FORWARD_RATE_LIMIT copies per subscriber in 24 hours ' +
          '(429 beyond). An address that was already forwarded this campaign, by anyone, is `already_sent`.',
        security: [],
        params: ForwardParams,
        body: ForwardBody,
        response: {
          202: ForwardResult,
          ...errorResponses(400, 404, 429),
          // Field errors, or the plain `Cannot forward: user has not received this message`.
          422: Type.Union([Type.Ref(ValidationFailure), Type.Ref(Message)]),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await service.forward(app.ctx, request.params.messageId, request.body)),
  );
};
