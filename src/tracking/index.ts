/*
 * Tracking: open and click events, statistics.
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { EventBuffer } from './event-buffer.js';
export { trackingDrops, type TrackingDrops } from './address-limiter.js';
// The tracked link (/lt/…) is a page a subscriber opens, so its route lives in public/ and reaches tracking here.
export { LimitedPage, LinkTokenParams, LinkTrackQuery, NotFoundPage, RedirectResponse } from './click.schemas.js';
export { followLink, LIMITED } from './click.service.js';
export { firstValue, requestDetails } from './request-details.js';
