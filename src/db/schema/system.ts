import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Secrets generated once per installation and shared by every process on the database (for example the key that
 * signs click-tracking links). Filled by `routines/000_secrets.sql`; never exposed by the API.
 */
export const installationSecrets = pgTable('installation_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
