/*
 * Public pages: the HTML that subscribers see (sign-up, preferences, forward, confirm).
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { limited } from './change-limit.js';
export { confirmProblemPage, confirmedPage } from './confirm.pages.js';
export { hiddenField, textareaField } from './forms.js';
export { sendPage } from './headers.js';
export type { PublicPage } from './headers.js';
export { messagePage, renderLayout } from './layout.js';
export { errors } from './messages/errors.js';
export { unsubscribe } from './messages/unsubscribe.js';
export { pageContext } from './page-context.js';
export { addSubscriptions } from './preferences.repository.js';
export { seal, unseal } from './sealed-token.js';
