import { bigint, bigserial, boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { campaigns } from './messaging.js';
import { links } from './sending.js';
import { subscribers } from './subscription.js';

/*
 * The tracking area: opens and clicks as they arrive, and per-campaign counters kept up to date with them so
 * statistics never count event rows on a request.
 */

export const opens = pgTable(
  'opens',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    subscriberId: integer('subscriber_id')
      .notNull()
      .references(() => subscribers.id, { onDelete: 'cascade' }),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    referer: text('referer'),
    /** Not a person: a privacy proxy's prefetch, an open seconds after delivery, a scanner. */
    machine: boolean('machine').notNull().default(false),
    machineReason: text('machine_reason'),
  },
  (t) => [index('opens_campaign_id_idx').on(t.campaignId, t.openedAt), index('opens_subscriber_id_idx').on(t.subscriberId)],
);

export const clicks = pgTable(
  'clicks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    linkId: integer('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    subscriberId: integer('subscriber_id')
      .notNull()
      .references(() => subscribers.id, { onDelete: 'cascade' }),
    clickedAt: timestamp('clicked_at', { withTimezone: true }).notNull().defaultNow(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    referer: text('referer'),
    machine: boolean('machine').notNull().default(false),
    machineReason: text('machine_reason'),
  },
  (t) => [index('clicks_campaign_id_idx').on(t.campaignId, t.clickedAt), index('clicks_subscriber_id_idx').on(t.subscriberId)],
);

/**
 * Per-campaign figures, updated in the same transaction as the events that change them (deliveries by the sender,
 * opens/clicks/bounces/forwards by tracking), so that statistics read one row.
 */
export const campaignCounters = pgTable('campaign_counters', {
  campaignId: integer('campaign_id')
    .primaryKey()
    .references(() => campaigns.id, { onDelete: 'cascade' }),
  queued: bigint('queued', { mode: 'number' }).notNull().default(0),
  sent: bigint('sent', { mode: 'number' }).notNull().default(0),
  failed: bigint('failed', { mode: 'number' }).notNull().default(0),
  skipped: bigint('skipped', { mode: 'number' }).notNull().default(0),
  opens: bigint('opens', { mode: 'number' }).notNull().default(0),
  uniqueOpens: bigint('unique_opens', { mode: 'number' }).notNull().default(0),
  humanOpens: bigint('human_opens', { mode: 'number' }).notNull().default(0),
  uniqueHumanOpens: bigint('unique_human_opens', { mode: 'number' }).notNull().default(0),
  clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
  uniqueClicks: bigint('unique_clicks', { mode: 'number' }).notNull().default(0),
  humanClicks: bigint('human_clicks', { mode: 'number' }).notNull().default(0),
  bounces: bigint('bounces', { mode: 'number' }).notNull().default(0),
  forwards: bigint('forwards', { mode: 'number' }).notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
