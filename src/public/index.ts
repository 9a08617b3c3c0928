/*
 * Public pages: the HTML that subscribers see (sign-up, preferences, forward, confirm).
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { limited } from './change-limit.js';
export { hiddenField, textareaField } from './forms.js';
export { sendPage } from './headers.js';
export type { PublicPage } from './headers.js';
export { renderLayout } from './layout.js';
export { errors } from './messages/errors.js';
export { unsubscribe } from './messages/unsubscribe.js';
export { pageContext } from './page-context.js';
// The resubscribe form of the unsubscribe page joins through subscription's repository (membership writes live there).
export { joinLists as addSubscriptions } from '../subscription/index.js';
export { seal, unseal } from './sealed-token.js';
