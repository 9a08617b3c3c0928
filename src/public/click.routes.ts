import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  firstValue,
  followLink,
  LIMITED,
  LimitedPage,
  LinkTokenParams,
  LinkTrackQuery,
  NotFoundPage,
  RedirectResponse,
  requestDetails,
} from '../tracking/index.js';
import { sendPage } from './headers.js';
import { messagePage } from './layout.js';

/*
 * A forged, mistyped or cut-off link: a page in the public pages' layout that says what the reader can do (issue 25:
 * it was one bare sentence). English only: the link names no subscriber or subscribe page whose language it could use.
 */
const NOT_FOUND_PAGE = messagePage({
  lang: 'en',
  title: 'This link does not work',
  heading: 'This link does not work',
  paragraphs: [
    'The address you opened is not complete or has been changed: a mail program sometimes breaks a long link across two lines.',
    'Open the mail again and click the link there, or copy the whole address into your browser. If it still does not work, ' +
      'reply to the mail to tell its sender.',
  ],
});
const LIMITED_PAGE =
  '<!doctype html><title>Too many requests</title><h1>Too many requests from your network.</h1><p>Please try the link again in a moment.</p>';

/**
 * Click tracking (../shared/api/DECISIONS.md § Paths): `GET /lt/{token}` at the root — what campaign mail carries — and
 * `GET /api/v2/link-track?id={token}` — what phpList writes (reference §7.4). Both 302 to the link's URL and record the
 * click; an unknown token is a 404 page, never a 500. Registered once per prefix: `root` picks the path.
 */
export const clickRoutes: FastifyPluginAsyncTypebox<{ root?: boolean }> = async (app, options) => {
  const follow = async (request: FastifyRequest, reply: FastifyReply, token: string | undefined) => {
    const url = await followLink(app.ctx, token, requestDetails(request));
    if (url === LIMITED) return reply.code(429).header('retry-after', '1').type('text/html; charset=utf-8').send(LIMITED_PAGE);
    if (!url) return sendPage(reply.type('text/html; charset=utf-8'), 404, NOT_FOUND_PAGE);
    // Not cached: every click is to reach us.
    return reply.code(302).header('cache-control', 'no-store').header('location', url).send();
  };

  if (options.root === true) {
    app.get(
      '/lt/:token',
      {
        // A token is decoded and verified, never looked up as text: a mangled one (NUL too) is the 404 page.
        config: { allowNul: true },
        schema: {
          tags: ['tracking'],
          operationId: 'followTrackedLink',
          summary: 'Follow a click-tracked link of a campaign mail (public)',
          security: [],
          params: LinkTokenParams,
          response: { 302: RedirectResponse, 404: NotFoundPage, 429: LimitedPage },
        },
      },
      (request, reply) => follow(request, reply, request.params.token),
    );
    return;
  }

  app.get(
    '/link-track',
    {
      config: { allowNul: true },
      schema: {
        tags: ['tracking'],
        operationId: 'followTrackedLinkById',
        summary: "Follow a click-tracked link, phpList's form (public)",
        security: [],
        querystring: LinkTrackQuery,
        response: { 302: RedirectResponse, 404: NotFoundPage, 429: LimitedPage },
      },
      validatorCompiler: () => () => true,
    },
    (request, reply) => follow(request, reply, firstValue((request.query as Record<string, unknown>).id)),
  );
};
