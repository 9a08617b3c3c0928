/*
 * Settings (issue 26): what an operator sets in the console, stored in the database and applied by every process
 * without a restart. The lowest area: mail and the areas above read the settings that apply through SettingsStore.
 * Route plugins are not here: app.ts registers them.
 */
export { SettingsStore, splitMailbox } from './settings.store.js';
export type { EffectiveSettings, LogoInfo } from './settings.store.js';
export { logoPath } from './settings.service.js';
