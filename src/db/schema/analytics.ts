import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

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
 * Subscribers per local part (lower-cased part before the first `@`). One row per local part, not sharded: the top
 * local parts are read from the index on the count, which a sum over shards could not use; a local part is shared
 * by few concurrent writers, unlike a domain.
 */
export const subscriberLocalPartCounts = pgTable(
  'subscriber_local_part_counts',
  {
    localPart: text('local_part').primaryKey(),
    subscribers: bigint('subscribers', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('subscriber_local_part_counts_top_idx').on(t.subscribers.desc(), t.localPart)],
);
