import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../shared/schemas.js';
import { pageData, SubscribePageParams, requirePage } from '../subscription/index.js';
import { embedSnippet } from './embed.js';
import { signupPreview } from './signup.preview.js';
import { buildSignupForm } from './signup.service.js';

const EmbedSnippet = Type.Object({
  html: Type.String({ description: 'A plain HTML form posting to the hosted sign-up form; no script, no stylesheet' }),
  url: Type.String({ description: 'The hosted form, to link to instead' }),
});

const SignupPreview = Type.Object({
  html: Type.String({
    description: 'The hosted page as a visitor would get it once the page is active, the shared stylesheet written in',
  }),
  image_origins: Type.Array(Type.String(), { description: 'Origins of the images it shows (a logo): what a frame showing it must allow' }),
});

/**
 * `GET /subscribe-pages/{pageId}/embed`: the sign-up form as HTML to paste into another site, and `…/preview`: the
 * hosted page as the console previews it (administrators).
 */
export const embedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const canView = app.requireAuth('subscribers', 'You are not allowed to view subscribe pages.');
  app.get(
    '/subscribe-pages/:pageId/embed',
    {
      onRequest: canView,
      schema: {
        tags: ['subscribe pages'],
        operationId: 'getSubscribePageEmbed',
        summary: "The HTML of the page's sign-up form, to paste into another site",
        description:
          "Built from the page as it is now (active or not; an inactive page answers 404 to the posts). In the page's " +
          '`language`, else English. A post from the snippet lands on the hosted pages: the thank-you page (303), the ' +
          'form with its messages (422), or the wait page (429).',
        params: SubscribePageParams,
        response: { 200: EmbedSnippet, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { page } = await requirePage(app.ctx, request.params.pageId);
      const data = new Map((await pageData(app.ctx.db, page.id)).map((r) => [r.name, r.data]));
      const form = await buildSignupForm(app.ctx, page, data, undefined);
      return { html: embedSnippet(app.ctx.config.publicUrl, form), url: `${app.ctx.config.publicUrl}/subscribe/${page.id}` };
    },
  );

  app.get(
    '/subscribe-pages/:pageId/preview',
    {
      onRequest: canView,
      schema: {
        tags: ['subscribe pages'],
        operationId: 'getSubscribePagePreview',
        summary: 'The hosted sign-up page as a visitor would see it, active or not (for a preview frame)',
        description:
          "The form (or, with no public list to offer, the page saying sign-ups are not open yet) in the page's " +
          "`language` else English, with its look and the organisation's name and logo. The shared stylesheet is " +
          'inline, so a sandboxed frame needs to load nothing but the images of `image_origins`.',
        params: SubscribePageParams,
        response: { 200: SignupPreview, ...errorResponses(403, 404) },
      },
    },
    async (request) => signupPreview(app.ctx, request.params.pageId),
  );
};
