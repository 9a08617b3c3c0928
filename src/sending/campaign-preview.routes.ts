import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { CampaignParams, requireCampaign } from '../messaging/index.js';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { errorResponses } from '../shared/schemas.js';
import { campaignChecks } from './campaign-checks.js';
import { campaignPlaceholders } from './campaign-placeholders.js';
import { Checks, Placeholders, Preview, PreviewBody } from './campaign-preview.schemas.js';
import { previewCampaign } from './campaign-preview.service.js';

const tags = ['campaigns'];

/** The console's editor aids (issue 12): a preview from the sender's composer, checks before sending, placeholders. */
export const campaignPreviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', 'You are not allowed to manage campaigns.');
  // Authentication, then the campaign, then the body (../shared/api/DECISIONS.md § Order of checks).
  const campaignFirst = async (request: FastifyRequest) => {
    await requireCampaign(app.ctx, rawPathId(request, 'messageId'));
  };

  app.post(
    '/campaigns/:messageId/preview',
    {
      onRequest: guard,
      preValidation: campaignFirst,
      schema: {
        tags,
        operationId: 'previewCampaign',
        summary: "The campaign rendered for one subscriber by the sender's composer (ours)",
        description:
          'Placeholders filled, template applied, links as written (no tracked links stored), no open pixel; nothing ' +
          'is sent or recorded. Give `subscriber_id` or `email`, or `sample: true` (422 for none or several); 404 ' +
          '`Subscriber not found.` A real subscriber needs the `subscribers` privilege as well (403; their uid, ' +
          'attributes and working links are theirs); the sample shows sample values and links that do not work.',
        params: CampaignParams,
        body: PreviewBody,
        response: { 200: Preview, ...errorResponses(403, 404, 409, 422) },
      },
    },
    async (request) => previewCampaign(app.ctx, request.params.messageId, request.body, callerOf(request)),
  );

  app.get(
    '/campaigns/:messageId/checks',
    {
      onRequest: guard,
      preValidation: campaignFirst,
      schema: {
        tags,
        operationId: 'checkCampaign',
        summary: 'Warnings before sending, each with the part and line it comes from (ours)',
        description:
          'Codes: `no_unsubscribe_link`, `link_not_full_url`, `image_not_full_url`, `empty_text_part`, ' +
          '`unknown_placeholder`. Warnings never block sending.',
        params: CampaignParams,
        response: { 200: Checks, ...errorResponses(403, 404) },
      },
    },
    async (request) => campaignChecks(app.ctx, request.params.messageId),
  );

  app.get(
    '/campaign-placeholders',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listCampaignPlaceholders',
        summary: 'The placeholders a campaign can use, attributes included (ours)',
        response: { 200: Placeholders, ...errorResponses(403) },
      },
    },
    async () => campaignPlaceholders(app.ctx),
  );
};
