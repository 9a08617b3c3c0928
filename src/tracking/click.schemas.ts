import { Type } from '@sinclair/typebox';

export const LinkTokenParams = Type.Object({
  token: Type.String({ description: 'The click-tracking token written into the mail' }),
});

/** Documented, never enforced (the route reads `id` itself): any query is a redirect or the 404 page. */
export const LinkTrackQuery = Type.Object({
  id: Type.Optional(Type.String({ description: 'The click-tracking token written into the mail' })),
});

export const RedirectResponse = {
  description: "Redirect to the link's URL; the click is recorded unless the client address is over TRACKING_RATE",
  headers: { location: { type: 'string', description: 'The URL of the link' } },
  type: 'null',
};

export const NotFoundPage = {
  description: 'Unknown, malformed or forged token: a small HTML page',
  content: { 'text/html': { schema: { type: 'string' } } },
};

export const LimitedPage = {
  description:
    'A click-tracking token of the old 16-character form (32-bit signature, mailed before issue 17) from a client ' +
    'address over TRACKING_RATE: a small HTML page and `Retry-After: 1`. Current tokens always redirect.',
  content: { 'text/html': { schema: { type: 'string' } } },
};
