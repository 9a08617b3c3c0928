import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { campaigns } from './messaging.js';
import { links } from './sending.js';
import { subscribers } from './subscription.js';

/*
 * The tracking area: opens and clicks as they arrive, and per-campaign counters kept up to date with them so
 * statistics never count event rows on a request. Opens and clicks are written thousands per statement by the
 * event buffer's flush; their references are kept by statement-level triggers (routines/030_tracking_events.sql)
 * rather than foreign keys, which would check and lock every row on its own.
 */

export const opens = pgTable(
  'opens',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // Parents checked and cascaded per statement, not per row (routines/030_tracking_events.sql).
    campaignId: integer('campaign_id').notNull(),
    subscriberId: integer('subscriber_id').notNull(),
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
    // Parents checked and cascaded per statement, not per row (routines/030_tracking_events.sql).
    linkId: integer('link_id').notNull(),
    campaignId: integer('campaign_id').notNull(),
    subscriberId: integer('subscriber_id').notNull(),
    clickedAt: timestamp('clicked_at', { withTimezone: true }).notNull().defaultNow(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    referer: text('referer'),
    machine: boolean('machine').notNull().default(false),
    machineReason: text('machine_reason'),
  },
  (t) => [
    index('clicks_campaign_id_idx').on(t.campaignId, t.clickedAt),
    index('clicks_subscriber_id_idx').on(t.subscriberId),
    // The cascade when a link goes (routines/030_tracking_events.sql).
    index('clicks_link_id_idx').on(t.linkId),
  ],
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

/**
 * Opens and clicks per campaign and hour (UTC), added to by each flush of the event buffer, so the per-hour series of
 * a campaign's statistics and the dashboard's daily figures read a few rows instead of grouping millions of events.
 */
export const campaignHourlyEvents = pgTable(
  'campaign_hourly_events',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    opens: bigint('opens', { mode: 'number' }).notNull().default(0),
    humanOpens: bigint('human_opens', { mode: 'number' }).notNull().default(0),
    clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
    humanClicks: bigint('human_clicks', { mode: 'number' }).notNull().default(0),
  },
  // The dashboard reads the last days across all campaigns.
  (t) => [primaryKey({ columns: [t.campaignId, t.hour] }), index('campaign_hourly_events_hour_idx').on(t.hour)],
);

/**
 * Who clicked which link, once per pair: inserting with ON CONFLICT DO NOTHING tells a link's first click by a
 * subscriber from the others exactly, even when several processes flush clicks at once (links.unique_clicks).
 */
export const linkClickers = pgTable(
  'link_clickers',
  {
    linkId: integer('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    subscriberId: integer('subscriber_id')
      .notNull()
      .references(() => subscribers.id, { onDelete: 'cascade' }),
    firstClickedAt: timestamp('first_clicked_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.subscriberId] }), index('link_clickers_subscriber_id_idx').on(t.subscriberId)],
);

/**
 * A campaign's figures per recipient domain, as of its snapshot (campaign_domain_snapshots.computed_at). Counting
 * them on request grouped a million deliveries (3.8 s), and live counters would add work to the sender's and the
 * flush's hot paths, so a refresh recomputes a campaign's rows in one statement now and then (tracking/campaign-domains.*).
 */
export const campaignDomainStats = pgTable(
  'campaign_domain_stats',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    /** Delivery records, whatever their status. */
    recipients: bigint('recipients', { mode: 'number' }).notNull(),
    sent: bigint('sent', { mode: 'number' }).notNull(),
    failed: bigint('failed', { mode: 'number' }).notNull(),
    /** Recipients with an open judged a person's (unique human opens). */
    opened: bigint('opened', { mode: 'number' }).notNull(),
    /** Recipients who clicked at least once. */
    clicked: bigint('clicked', { mode: 'number' }).notNull(),
    /** Recipients with at least one bounce matched to the campaign. */
    bounced: bigint('bounced', { mode: 'number' }).notNull(),
  },
  // The report reads the largest domains first.
  (t) => [
    primaryKey({ columns: [t.campaignId, t.domain] }),
    index('campaign_domain_stats_order_idx').on(t.campaignId, t.recipients.desc(), t.domain),
  ],
);

/** When a campaign's domain figures were computed, and whether a refresh is running (claimed since then). */
export const campaignDomainSnapshots = pgTable('campaign_domain_snapshots', {
  campaignId: integer('campaign_id')
    .primaryKey()
    .references(() => campaigns.id, { onDelete: 'cascade' }),
  computedAt: timestamp('computed_at', { withTimezone: true }),
  refreshingSince: timestamp('refreshing_since', { withTimezone: true }),
});
