import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/*
 * Outgoing webhooks (issue 27): endpoints registered by administrators, an outbox of events written in the same
 * transaction as the change they report, and one delivery record per (endpoint, event) that the worker claims.
 */

/** A receiver: where to POST, which event types it wants, and the Standard Webhooks secret (`whsec_<base64>`). */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: serial('id').primaryKey(),
  url: text('url').notNull(),
  /** Event types wanted, e.g. `{subscriber.created,bounce.recorded}`. */
  events: text('events').array().notNull(),
  secret: text('secret').notNull(),
  enabled: boolean('enabled').notNull().default(true),
  /** Why the service disabled it (deliveries failing for three days); null when enabled or disabled by hand. */
  disabledReason: text('disabled_reason'),
  /** Start of the current run of failed deliveries; null after any success. */
  failingSince: timestamp('failing_since', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The outbox: one row per event, kept narrow. `id` (`msg_<random>`) is the `webhook-id` header, the same on every
 * attempt and every endpoint, so receivers can deduplicate.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_events_created_at_idx').on(t.createdAt)],
);

/**
 * One per (endpoint, event): `pending → delivered | failed`. Workers claim due pending rows with FOR UPDATE SKIP
 * LOCKED and a lease (`lease_until`); a crashed worker's rows come back when the lease runs out.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastStatus: integer('last_status'),
    lastResponse: text('last_response'),
    lastError: text('last_error'),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_key').on(t.endpointId, t.eventId),
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_id_idx').on(t.endpointId, t.id),
    index('webhook_deliveries_event_id_idx').on(t.eventId),
  ],
);
