// Every table, per area. drizzle-kit reads this file to generate migrations.
export * from './identity.js';
export * from './subscription.js';
export * from './messaging.js';
export * from './sending.js';
export * from './tracking.js';
export * from './system.js';
export * from './segments.js';
export * from './analytics.js';
export * from './mail.js';
export * from './webhooks.js';
export * from './media.js';
export * from './settings.js';
