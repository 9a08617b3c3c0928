import { sql } from 'drizzle-orm';
import { bigint, bigserial, date, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { campaigns } from './messaging.js';
import { lists, subscribers } from './subscription.js';

/*
 * The sending area: the delivery ledger, the shared rate-limit windows, tracked links and forwards.
 */

/**
 * One record per (campaign, subscriber), written by a worker in bulk chunks before the campaign is sent (the
 * audience is frozen then; see campaign_audience_sources). `queued → sending → sent | failed`; `skipped` when the
 * address turned out blacklisted or invalid at send time. Workers claim `queued` rows whose `next_attempt_at` has
 * come with FOR UPDATE SKIP LOCKED and hold them under a lease; a row still `sending` after its lease ran out is
 * queued again.
 *
 * No foreign keys on campaign_id and subscriber_id, on purpose: a row foreign key checks (and locks) each inserted
 * row's parents one by one, which was more than a third of the time of freezing 100,000 recipients. The statement-
 * level triggers of src/db/routines/021_delivery_parents.sql give the same guarantees once per statement: parents
 * must exist (23503 otherwise), and a deleted campaign or subscriber takes its records with it.
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    campaignId: integer('campaign_id').notNull(),
    subscriberId: integer('subscriber_id').notNull(),
    status: text('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    /** The last SMTP reply (or transport error) for this record. */
    lastResponse: text('last_response'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    workerId: text('worker_id'),
    /** `html` or `text`: what the subscriber was sent. */
    format: text('format'),
    /** The Message-ID header of the mail, for matching bounces and replies. */
    messageId: text('message_id'),
    queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    firstOpenedAt: timestamp('first_opened_at', { withTimezone: true }),
    firstClickedAt: timestamp('first_clicked_at', { withTimezone: true }),
    /** The first open judged a person's (tracking/machine-detection.ts); unique human opens count these. */
    firstHumanOpenedAt: timestamp('first_human_opened_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('deliveries_campaign_subscriber_key').on(t.campaignId, t.subscriberId),
    // Claims, the deliveries API (status filter, keyset by id) and counts by status.
    index('deliveries_campaign_status_id_idx').on(t.campaignId, t.status, t.id),
    // A subscriber's deliveries, newest first (consecutive-bounce rule, attachment access, forwards).
    index('deliveries_subscriber_id_idx').on(t.subscriberId, t.id),
    // Bounce processing matches a returned mail's Message-ID to its delivery.
    index('deliveries_message_id_idx')
      .on(t.messageId)
      .where(sql`${t.messageId} is not null`),
  ],
);

/** Sends counted per key (`global`, `domain:<domain>`) and window start, shared by every worker. */
export const sendRateWindows = pgTable(
  'send_rate_windows',
  {
    key: text('key').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/** Each distinct URL of a campaign, stored once; mail carries `PUBLIC_URL/lt/<token>` (see tracking/link-token.ts). */
export const links = pgTable(
  'links',
  {
    id: serial('id').primaryKey(),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    clicks: integer('clicks').notNull().default(0),
    uniqueClicks: integer('unique_clicks').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('links_campaign_url_key').on(t.campaignId, sql`md5(${t.url})`)],
);

/** Forward-to-a-friend sends (reference §5.17). */
export const forwards = pgTable(
  'forwards',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    subscriberId: integer('subscriber_id')
      .notNull()
      .references(() => subscribers.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    status: text('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('forwards_subscriber_created_idx').on(t.subscriberId, t.createdAt),
    index('forwards_campaign_email_idx').on(t.campaignId, sql`lower(${t.email})`),
  ],
);

/**
 * The sender's own per-campaign state, shared by every worker: the run of consecutive failed deliveries (a long
 * run suspends the campaign instead of burning through the list) and why the sender last suspended it.
 */
export const campaignSendStates = pgTable('campaign_send_states', {
  campaignId: integer('campaign_id')
    .primaryKey()
    .references(() => campaigns.id, { onDelete: 'cascade' }),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  /** Set when the sender suspended the campaign; cleared when it is resumed. */
  pausedReason: text('paused_reason'),
  pausedAt: timestamp('paused_at', { withTimezone: true }),
  /**
   * Set while the relay cannot be used for the campaign's mail (issue 23, sending/relay-state.ts): what happened,
   * since when, and when the sender tries again; cleared when the relay answers. The campaign stays `inprocess`.
   */
  relayError: text('relay_error'),
  relayDownSince: timestamp('relay_down_since', { withTimezone: true }),
  relayRetryAt: timestamp('relay_retry_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The lists whose members a campaign's audience is frozen from, one row per (campaign, list), with the freeze's
 * progress. Submitting a campaign (send, resume, requeue, a repeat's copy) marks its own lists to be frozen; a resend
 * marks the lists it names. A worker then freezes each pending list in chunks, by subscriber id, and moves
 * `frozen_through_subscriber_id` on with every chunk, so a freeze interrupted (worker stopped, campaign suspended)
 * continues where it stopped. `frozen_at` is set when the list is done; marking a done list again starts a new
 * pass from the first subscriber (records are additive, so nobody is given a second one). The rows stay afterwards
 * as the record of which lists a campaign was sent (and resent) to.
 */
export const campaignAudienceSources = pgTable(
  'campaign_audience_sources',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    listId: integer('list_id')
      .notNull()
      .references(() => lists.id, { onDelete: 'cascade' }),
    frozenThroughSubscriberId: integer('frozen_through_subscriber_id').notNull().default(0),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
    /** When the last pass over this list finished; null while one is pending. */
    frozenAt: timestamp('frozen_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.listId] }),
    // The worker's "what is left to freeze" scan, over pending rows only.
    index('campaign_audience_sources_pending_idx')
      .on(t.campaignId)
      .where(sql`${t.frozenAt} is null`),
  ],
);

/**
 * Deliveries finished per campaign and UTC day, added to by the statement that records each batch's outcomes
 * (delivery.repository.ts recordOutcomes), so the dashboard's sends per day read a few rows per campaign instead of
 * grouping millions of deliveries by their sent time. Keyed by campaign, like campaign_counters, so workers sending
 * different campaigns never wait on the same row. Days before this table existed are not in it.
 */
export const campaignDailySends = pgTable(
  'campaign_daily_sends',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    sent: bigint('sent', { mode: 'number' }).notNull().default(0),
    failed: bigint('failed', { mode: 'number' }).notNull().default(0),
  },
  // The dashboard reads the last days across all campaigns.
  (t) => [primaryKey({ columns: [t.campaignId, t.day] }), index('campaign_daily_sends_day_idx').on(t.day)],
);
