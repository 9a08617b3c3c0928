import { bigserial, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { bytea } from './messaging.js';

/*
 * Settings an operator changes in the console (issue 26): one row per key, its value as JSON. Every write takes a new
 * `version` from the column's sequence, so a process learns of a change anywhere by reading max(version)
 * (src/settings/settings.store.ts). A key set back to its default keeps its row with a null value, so that the
 * version still moves.
 */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value'),
  version: bigserial('version', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** The administrator who last changed it (no foreign key: the record outlives the administrator). */
  updatedBy: integer('updated_by'),
});

/** The organisation's logo (at most one row, id 1): bytes kept in the database so that every process serves them. */
export const organisationLogo = pgTable('organisation_logo', {
  id: integer('id').primaryKey(),
  contentType: text('content_type').notNull(),
  bytes: bytea('bytes').notNull(),
  /** Hex SHA-256 of the bytes: the ETag and the cache-busting part of the logo's address. */
  sha256: text('sha256').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
