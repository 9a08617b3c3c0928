import { bigint, boolean, date, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/*
 * Rollups of the subscribers for the analytics endpoints, kept by statement-level triggers on subscribers
 * (routines/013_subscriber_rollups.sql), so the audience reports read a few thousand counter rows instead of
 * grouping a million addresses on each request.
 */

/**
 * Subscribers per domain (lower-cased part after the first `@`) and state, in 16 shards chosen by the writing backend
 * as subscriber_counts is: imports to a big domain rarely wait on each other. A domain's figures are the sum of its
 * shards. `blacklisted` wins over `confirmed` (each subscriber counted once, reference §8.5).
 */
export const subscriberDomainCounts = pgTable(
  'subscriber_domain_counts',
  {
    domain: text('domain').notNull(),
    shard: integer('shard').notNull(),
    confirmed: bigint('confirmed', { mode: 'number' }).notNull().default(0),
    unconfirmed: bigint('unconfirmed', { mode: 'number' }).notNull().default(0),
    blacklisted: bigint('blacklisted', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.domain, t.shard] })],
);

/**
 * Subscribers per UTC day of creation (`created_at`), in 16 shards as subscriber_domain_counts: how many were created
 * that day and are still there, and how many of those are confirmed and blacklisted now (each its own flag). The
 * dashboard's new subscribers and its growth chart read these instead of a pass over every subscriber (about 200 ms
 * at a million, issue 24); their sum over all days is the totals.
 */
export const subscriberDailyCounts = pgTable(
  'subscriber_daily_counts',
  {
    day: date('day').notNull(),
    shard: integer('shard').notNull(),
    subscribers: bigint('subscribers', { mode: 'number' }).notNull().default(0),
    confirmed: bigint('confirmed', { mode: 'number' }).notNull().default(0),
    blacklisted: bigint('blacklisted', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.shard] })],
);

/**
 * The most common local parts (lower-cased part before the first `@`), as of the last snapshot
 * (`analytics_snapshots` row `local_parts`): the top LOCAL_PART_SNAPSHOT_SIZE, recomputed in the background
 * (tracking/local-parts.service.ts). Kept per write until issue 24 it was a row per distinct local part, as many rows
 * as subscribers, and a fifth of an import's cost.
 */
export const subscriberLocalPartCounts = pgTable(
  'subscriber_local_part_counts',
  {
    localPart: text('local_part').primaryKey(),
    subscribers: bigint('subscribers', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('subscriber_local_part_counts_top_idx').on(t.subscribers.desc(), t.localPart)],
);

/**
 * Analytics figures kept as snapshots, one row per figure. `dirty`: the data changed since the last refresh began
 * (set by the statement-level triggers on subscribers, a no-op when already set); `refreshing_since`: a refresh is
 * running (a claim, taken over after a timeout); `total`: the figure's denominator at `computed_at`.
 */
export const analyticsSnapshots = pgTable('analytics_snapshots', {
  name: text('name').primaryKey(),
  computedAt: timestamp('computed_at', { withTimezone: true }),
  refreshingSince: timestamp('refreshing_since', { withTimezone: true }),
  dirty: boolean('dirty').notNull().default(true),
  total: bigint('total', { mode: 'number' }).notNull().default(0),
  /** How long the last refresh took: a slow one is not repeated more often than every ten times that. */
  refreshMs: integer('refresh_ms').notNull().default(0),
});
