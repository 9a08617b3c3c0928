import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { rawPathId } from '../plugins/http.js';
import { errorResponses } from '../shared/schemas.js';
import { Campaign, CampaignParams, StatusBody, requireCampaign } from '../messaging/index.js';
import { setCampaignStatus } from './campaign-status.service.js';

/*
 * PATCH /campaigns/{id}/status lives with the lifecycle that owns every status change (./lifecycle), not with the
 * campaign's content in messaging/, so that messaging never reaches up into the sender.
 */
export const campaignStatusRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', 'You are not allowed to manage campaigns.');
  // Authentication, then the campaign (../shared/api/DECISIONS.md § Order of checks).
  const existsAfterAuth = async (request: FastifyRequest) => {
    await requireCampaign(app.ctx, rawPathId(request, 'messageId'));
  };

  app.patch(
    '/campaigns/:messageId/status',
    {
      onRequest: guard,
      preValidation: existsAfterAuth,
      schema: {
        tags: ['campaigns'],
        operationId: 'changeCampaignStatus',
        summary: "Change a campaign's status along the transitions of reference §7.1",
        description:
          'draft → submitted; suspended → submitted; submitted → prepared, inprocess, suspended; prepared → inprocess, ' +
          'suspended; inprocess → sent, suspended, submitted; requeued → inprocess, suspended; sent is final. ' +
          'Anything else is 409 `Invalid status transition`. Submitting needs a list, a subject, a from field and a body ' +
          '(422), and an invitation needs [CONFIRMATIONURL].',
        params: CampaignParams,
        body: StatusBody,
        response: { 200: Campaign, ...errorResponses(403, 404, 409, 422) },
      },
    },
    async (request) => setCampaignStatus(app.ctx, request.params.messageId, request.body),
  );
};
