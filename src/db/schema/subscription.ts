import { sql, type SQL } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { administrators } from './identity.js';

/*
 * The subscription area's core tables, laid down with the foundation because the messaging, sending and tracking areas
 * reference them. The subscription issue extends them (attributes, history, blacklist, subscribe pages).
 */

export const subscribers = pgTable(
  'subscribers',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull(),
    /** 32 lowercase hex characters; the subscriber's credential in every public link (`uid`, `u`). */
    uniqueId: text('unique_id').notNull(),
    confirmed: boolean('confirmed').notNull().default(false),
    blacklisted: boolean('blacklisted').notNull().default(false),
    bounceCount: integer('bounce_count').notNull().default(0),
    htmlEmail: boolean('html_email').notNull().default(true),
    disabled: boolean('disabled').notNull().default(false),
    extraData: text('extra_data'),
    foreignKey: text('foreign_key'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('subscribers_email_key').on(sql`lower(${t.email})`),
    uniqueIndex('subscribers_unique_id_key').on(t.uniqueId),
    // The CSV import matches rows by foreign key (reference §8.4), thousands at a time.
    index('subscribers_foreign_key_idx')
      .on(t.foreignKey)
      .where(sql`${t.foreignKey} is not null`),
    // The subscribers a campaign may go to, in id order: the send confirmation's audience count merges this with a
    // list's memberships (both in subscriber order, index-only) instead of hashing a million rows
    // (sending/audience.repository.ts). The predicate must stay the text of SENDABLE_FLAGS there.
    index('subscribers_sendable_idx')
      .on(t.id)
      .where(sql`confirmed and not blacklisted and not disabled`),
    // Of those, the ones who take plain text only: the confirmation of an HTML campaign says how many get its text
    // part. Read as a count over this index, it costs what there are of them (usually few) instead of two passes
    // over a million subscribers (about 180 ms, issue 24). Writers pay only for rows that match.
    index('subscribers_sendable_text_only_idx')
      .on(t.id)
      .where(sql`confirmed and not blacklisted and not disabled and not html_email`),
  ],
);

export const lists = pgTable(
  'lists',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description'),
    listPosition: integer('list_position'),
    subjectPrefix: text('subject_prefix'),
    /** phpList's `active`; shown as `public`. */
    isPublic: boolean('public').notNull().default(true),
    category: text('category').notNull().default(''),
    rssFeed: text('rss_feed'),
    ownerId: integer('owner_id').references(() => administrators.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('lists_owner_id_idx').on(t.ownerId)],
);

export const subscriptions = pgTable(
  'subscriptions',
  {
    // Parent checks and cascades by statement-level triggers (routines/012_subscriber_children.sql), not a foreign
    // key: a foreign key checks each row on its own, which was more than half of an import's database time.
    listId: integer('list_id').notNull(),
    subscriberId: integer('subscriber_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // The primary key (list_id, subscriber_id) serves "members of a list" keyset pages and counts;
  // the second index serves "lists of a subscriber".
  (t) => [primaryKey({ columns: [t.listId, t.subscriberId] }), index('subscriptions_subscriber_id_idx').on(t.subscriberId)],
);

/**
 * The blacklist: addresses that must never be mailed, whether or not a subscriber has them. Kept in step with the
 * subscribers' `blacklisted` flag (../shared/api/DECISIONS.md § Resources: one store; adding flags, removing clears
 * both).
 */
export const blacklist = pgTable(
  'blacklist',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull(),
    reason: text('reason'),
    addedBy: integer('added_by').references(() => administrators.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('blacklist_email_key').on(sql`lower(${t.email})`)],
);

/** What happened to a subscriber, for administrators: created, updated (which fields), confirmed, … */
export const subscriberHistory = pgTable(
  'subscriber_history',
  {
    id: serial('id').primaryKey(),
    // Parent checks and cascades by statement-level triggers (routines/012_subscriber_children.sql), not a foreign
    // key: a foreign key checks each row on its own, which was more than half of an import's database time.
    subscriberId: integer('subscriber_id').notNull(),
    ip: text('ip'),
    summary: text('summary'),
    detail: text('detail'),
    systemInfo: text('system_info'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // Serves "history of a subscriber" keyset pages.
  (t) => [index('subscriber_history_subscriber_id_id_idx').on(t.subscriberId, t.id)],
);

/** Subscriber attribute definitions (custom fields). Types of reference §7.7; names unique case-insensitively. */
export const attributeDefinitions = pgTable(
  'attribute_definitions',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    type: text('type'),
    listOrder: integer('list_order'),
    defaultValue: text('default_value'),
    required: boolean('required').notNull().default(false),
    /** Shown in the preference centre for the subscriber to change (issue 13; not in phpList). */
    subscriberEditable: boolean('subscriber_editable').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('attribute_definitions_name_key').on(sql`lower(${t.name})`)],
);

/** Options of the multi-valued attribute types (select, radio, checkboxgroup, checkbox): one table for all. */
export const attributeOptions = pgTable(
  'attribute_options',
  {
    id: serial('id').primaryKey(),
    definitionId: integer('definition_id')
      .notNull()
      .references(() => attributeDefinitions.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    listOrder: integer('list_order').notNull().default(0),
  },
  (t) => [uniqueIndex('attribute_options_definition_name_key').on(t.definitionId, sql`lower(${t.name})`)],
);

/**
 * A subscriber's value per definition. For option types the value holds option ids (comma-separated for
 * checkboxgroup), as phpList stores them.
 */
/**
 * Whether an attribute value is in subscriber_attribute_values_segment_idx: digits and dashes, at most 64 characters
 * (option ids, a checkbox's 0/1, YYYY-MM-DD dates). The index's predicate, and the segment conditions that read the
 * index, are both written with this: the planner proves a partial index usable only from the same expressions.
 */
export function segmentIndexedValue(value: SQL | AnyPgColumn): SQL {
  return sql`char_length(${value}) <= 64 and translate(${value}, '0123456789-', '') = ''`;
}

export const subscriberAttributeValues = pgTable(
  'subscriber_attribute_values',
  {
    // Parent checks and cascades by statement-level triggers (routines/012_subscriber_children.sql), not a foreign
    // key: a foreign key checks each row on its own, which was more than half of an import's database time.
    subscriberId: integer('subscriber_id').notNull(),
    definitionId: integer('definition_id').notNull(),
    value: text('value'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.subscriberId, t.definitionId] }),
    index('subscriber_attribute_values_definition_id_idx').on(t.definitionId),
    // Segments (src/segments/segment.compile.ts): "Country is Germany", "Newsletter is set" read one range of this
    // index, in subscriber order, without the table: 200,000 entries of a million in 90 ms instead of 300 ms through
    // the definition's index and the rows. Only values shaped like what those conditions compare (option ids, a
    // checkbox's 0/1, YYYY-MM-DD dates: digits and dashes, short): a textarea's 64 KB would not fit in an index entry,
    // and text values (names, cities) are never read through it, while every import paid for them in random inserts
    // (issue 24: a third of the attribute rows' write time). The conditions that use it say the same (segmentIndexedValue).
    index('subscriber_attribute_values_segment_idx').on(t.definitionId, t.value, t.subscriberId).where(segmentIndexedValue(t.value)),
  ],
);

/**
 * Members per list, kept by statement-level triggers on `subscriptions` (routines/010_list_member_counts.sql) so a
 * count is a read of a few rows instead of a scan of the list's index range. A list's count is the sum of its rows:
 * each writing session adds its delta to one of 16 shards (chosen by backend pid), so concurrent imports into one
 * list update different rows instead of queueing on a single row lock until each commits.
 */
export const listMemberCounts = pgTable(
  'list_member_counts',
  {
    listId: integer('list_id')
      .notNull()
      .references(() => lists.id, { onDelete: 'cascade' }),
    shard: integer('shard').notNull(),
    members: bigint('members', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.listId, t.shard] })],
);

/**
 * Sendable members per list (confirmed, not blacklisted, not disabled, address not in the blacklist table: the rule
 * the sender freezes an audience by), kept by statement-level triggers on subscriptions, subscribers and blacklist
 * (routines/014_list_sendable_counts.sql) in 16 shards like list_member_counts, so a send confirmation to one list
 * reads a few rows instead of counting a million members.
 */
export const listSendableCounts = pgTable(
  'list_sendable_counts',
  {
    listId: integer('list_id')
      .notNull()
      .references(() => lists.id, { onDelete: 'cascade' }),
    shard: integer('shard').notNull(),
    members: bigint('members', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.listId, t.shard] })],
);

/** Subscribe pages (reference §5.11, §6.12): a public form offering some lists; its settings live in page data. */
export const subscribePages = pgTable(
  'subscribe_pages',
  {
    id: serial('id').primaryKey(),
    title: text('title').notNull(),
    active: boolean('active').notNull().default(false),
    ownerId: integer('owner_id').references(() => administrators.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('subscribe_pages_owner_id_idx').on(t.ownerId)],
);

/**
 * A page's settings as name → text (phpList's keys: `intro`, `header`, `footer`, `thankyoupage`, `button`,
 * `lists` = comma-separated list ids, `attributes` = comma-separated attribute definition ids, …). Upserted by
 * (page, name).
 */
export const subscribePageData = pgTable(
  'subscribe_page_data',
  {
    pageId: integer('page_id')
      .notNull()
      .references(() => subscribePages.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    data: text('data'),
  },
  (t) => [primaryKey({ columns: [t.pageId, t.name] })],
);

/*
 * The e-mail substring search's index, kept off the write path (issue 24): a trigram GIN index on subscribers.email
 * cost an import a sixth of its database time, extracting every new address's trigrams as it was written. Writers
 * now record only which ids to index (a range per insert statement, an id per changed address: routine
 * 012_subscriber_email_search.sql), and subscription/email-search.ts folds them into this copy in the background,
 * where the trigram index lives. A search reads the index for the folded rows and the ranges not yet folded
 * directly, and checks every candidate against subscribers.email, so it is exact whatever the fold's progress.
 */
export const subscriberEmailSearch = pgTable('subscriber_email_search', {
  subscriberId: integer('subscriber_id').primaryKey(),
  email: text('email').notNull(),
});

/** Subscriber ids (`lo`..`hi`) whose address is not yet, or no longer, what subscriber_email_search holds. */
export const subscriberEmailSearchPending = pgTable('subscriber_email_search_pending', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  lo: integer('lo').notNull(),
  hi: integer('hi').notNull(),
});

/**
 * The number of subscribers, kept like list_member_counts (routines/011_subscriber_count.sql): the unfiltered
 * `GET /subscribers` total reads up to 16 rows instead of counting a million.
 */
export const subscriberCounts = pgTable('subscriber_counts', {
  shard: integer('shard').primaryKey(),
  subscribers: bigint('subscribers', { mode: 'number' }).notNull().default(0),
});

/**
 * Bulk actions over many subscribers (`POST /subscribers/bulk`): one row per request, its progress written after each
 * batch, so any process can answer `GET /subscribers/bulk/{id}` while the one that took the request does the work.
 */
export const bulkJobs = pgTable('bulk_jobs', {
  id: serial('id').primaryKey(),
  action: text('action').notNull(),
  /** `running`, then `done`, `failed` or `interrupted` (the process stopped between two batches). */
  state: text('state').notNull().default('running'),
  listId: integer('list_id'),
  reason: text('reason'),
  /** How many subscribers the selection held when the job started, and how many of them have been worked through. */
  total: integer('total').notNull().default(0),
  done: integer('done').notNull().default(0),
  /** How many the action changed (e.g. not already members, not already blacklisted). */
  affected: integer('affected').notNull().default(0),
  error: text('error'),
  adminId: integer('admin_id').references(() => administrators.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
});
