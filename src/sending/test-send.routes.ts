import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Campaign, CampaignParams, requireCampaign } from '../messaging/index.js';
import { rawPathId } from '../plugins/http.js';
import { errorResponses } from '../shared/schemas.js';
import { TestSendBody } from './test-send.schemas.js';
import * as service from './test-send.service.js';

export const testSendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', 'You are not allowed to manage campaigns.');

  app.post(
    '/campaigns/:messageId/test-send',
    {
      onRequest: guard,
      // Authentication, then the campaign, then the body (../shared/api/DECISIONS.md § Order of checks).
      preValidation: async (request) => {
        await requireCampaign(app.ctx, rawPathId(request, 'messageId'));
      },
      schema: {
        tags: ['campaigns'],
        operationId: 'testSendCampaign',
        summary: 'Send the campaign to a few existing subscribers as a test (any status; subject prefixed "(test) ")',
        description:
          'Renders the campaign exactly as a send would (template, personalisation, tracking, attachments) for each ' +
          'listed subscriber and sends it at once. No delivery records, counters or status change. 404 ' +
          '`Subscriber with email does not exists.` when an address is not a subscriber; 422 for a blacklisted one; ' +
          "409 when the campaign cannot be composed (an attachment's file is missing); 502 when the mail server refuses " +
          'a message.',
        params: CampaignParams,
        body: TestSendBody,
        response: { 200: Campaign, ...errorResponses(400, 403, 404, 409, 422, 502) },
      },
    },
    async (request) => service.testSend(app.ctx, request.params.messageId, request.body),
  );
};
