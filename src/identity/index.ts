/*
 * Identity: administrators, their sessions and privileges.
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { loginNameOf } from './administrator-login.js';
export { toAdministrator } from './administrator.repository.js';
export type { AdministratorRow } from './administrator.repository.js';
export type { Rights } from './administrator-rights.js';
export { Administrator } from './administrator.schemas.js';
export type { Privilege } from './administrator.schemas.js';
export { ensureFirstAdministrator, signInHelp } from './bootstrap.js';
export { findSessionByKey } from './session.service.js';
