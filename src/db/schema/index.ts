// Every table, per area. drizzle-kit reads this file to generate migrations.
export * from './identity.js';
export * from './subscription.js';
