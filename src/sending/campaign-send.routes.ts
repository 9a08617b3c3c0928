import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Campaign, CampaignParams, requireCampaign } from '../messaging/index.js';
import { rawPathId } from '../plugins/http.js';
import { Page } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { AudienceCount, Delivery, DeliveryListQuery, ResendBody, RetryResult } from './campaign-send.schemas.js';
import * as service from './campaign-send.service.js';

const tags = ['campaigns'];

/** Sending a campaign and its delivery ledger. Authentication first, then the campaign (specification row 13). */
export const campaignSendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', 'You are not allowed to manage campaigns.');
  // The campaign before the body or query is validated (../shared/api/DECISIONS.md § Order of checks).
  const campaignExists = async (request: FastifyRequest) => {
    await requireCampaign(app.ctx, rawPathId(request, 'messageId'));
  };

  app.post(
    '/campaigns/:messageId/send',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'sendCampaign',
        summary: 'Send a campaign: submit it and answer at once; workers send it in the background',
        description:
          'A draft or suspended campaign becomes `submitted` and the answer comes at once, whatever the size of its ' +
          'lists. From its embargo on, workers freeze its audience into delivery records (`prepared`), send it ' +
          '(`inprocess`) and end it `sent`. 422 says why a campaign cannot be submitted (no list, empty subject, from ' +
          'field or body). A campaign already submitted, being prepared or sent, or sent is answered unchanged.',
        params: CampaignParams,
        response: { 200: Campaign, ...errorResponses(403, 404, 409, 422) },
      },
    },
    async (request) => service.sendCampaign(app.ctx, request.params.messageId),
  );

  app.post(
    '/campaigns/:messageId/resend',
    {
      onRequest: guard,
      preValidation: campaignExists,
      schema: {
        tags,
        operationId: 'resendCampaign',
        summary: 'Send a campaign to further lists; subscribers who already have a record of it are skipped',
        description:
          'Answers at once; workers then add a delivery record for every confirmed, not blacklisted, not disabled ' +
          'member of `list_ids` who has none yet, and send them. A sent campaign goes back to `submitted` (and ends ' +
          '`sent` again); a campaign never sent answers 409.',
        params: CampaignParams,
        body: ResendBody,
        response: { 200: Campaign, ...errorResponses(403, 404, 409, 422) },
      },
    },
    async (request) => service.resendCampaign(app.ctx, request.params.messageId, request.body.list_ids),
  );

  app.get(
    '/campaigns/:messageId/audience',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getCampaignAudience',
        summary: 'How many subscribers a send of the campaign would go to now (ours, for a confirmation)',
        description:
          "Distinct members of the campaign's lists who are confirmed, not blacklisted, not disabled and whose address " +
          'is not in the blacklist: the rule the workers freeze the audience by. A campaign on one list without a segment ' +
          "is answered from that list's sendable counters, which the database keeps up to date as members change; any " +
          'other campaign (several lists, or a segment) is counted exactly when asked. Either way the number is of now: ' +
          'the records a send makes are frozen later, so members who join or leave meanwhile change the final number.',
        params: CampaignParams,
        response: { 200: AudienceCount, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => service.audience(app.ctx, request.params.messageId),
  );

  app.get(
    '/campaigns/:messageId/deliveries',
    {
      onRequest: guard,
      preValidation: campaignExists,
      schema: {
        tags,
        operationId: 'listCampaignDeliveries',
        summary: "A campaign's delivery records, cursor pages by id, optionally one status",
        querystring: DeliveryListQuery,
        params: CampaignParams,
        response: { 200: Page(Delivery), ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => service.listDeliveries(app.ctx, request.params.messageId, request.query),
  );

  app.post(
    '/campaigns/:messageId/retry-failed',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'retryFailedDeliveries',
        summary: "Queue a campaign's failed records again (attempts reset); a sent campaign goes back to submitted",
        params: CampaignParams,
        response: { 200: RetryResult, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.retryFailed(app.ctx, request.params.messageId),
  );
};
