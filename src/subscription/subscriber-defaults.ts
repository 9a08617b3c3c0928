import type { AppContext } from '../context.js';

/*
 * What a new subscriber gets when whoever creates it does not say. One place, so the import, the console's lists and
 * the public sign-up form cannot drift apart (issue 25: every one of them used to write html_email = false).
 */

/**
 * `html_email` of a subscriber created without one given: SUBSCRIBER_HTML_DEFAULT, or the console's setting when that is not set (on by default).
 * `POST /api/v2/subscribers` is the exception: without `html_email` it keeps phpList's false (docs/api.md).
 */
export function newSubscriberHtmlEmail(ctx: Pick<AppContext, 'settings'>): boolean {
  return ctx.settings.current.subscriberHtmlDefault;
}
