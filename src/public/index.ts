/*
 * Public pages: the HTML that subscribers see (sign-up, preferences, unsubscribe, forward, confirm).
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { sendPage } from './headers.js';
export { pageContext } from './page-context.js';
