import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { administrators } from './identity.js';

/*
 * The subscription area's core tables, laid down with the foundation because the messaging and statistics areas
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
    listId: integer('list_id')
      .notNull()
      .references(() => lists.id, { onDelete: 'cascade' }),
    subscriberId: integer('subscriber_id')
      .notNull()
      .references(() => subscribers.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // The primary key (list_id, subscriber_id) serves "members of a list" keyset pages and counts;
  // the second index serves "lists of a subscriber".
  (t) => [primaryKey({ columns: [t.listId, t.subscriberId] }), index('subscriptions_subscriber_id_idx').on(t.subscriberId)],
);

/**
 * The blacklist: addresses that must never be mailed, whether or not a subscriber has them. Kept in step with
 * the subscribers' `blacklisted` flag (DECISIONS.md: one store; adding flags, removing clears both).
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
    subscriberId: integer('subscriber_id')
      .notNull()
      .references(() => subscribers.id, { onDelete: 'cascade' }),
    ip: text('ip'),
    summary: text('summary'),
    detail: text('detail'),
    systemInfo: text('system_info'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // Serves "history of a subscriber" keyset pages.
  (t) => [index('subscriber_history_subscriber_id_id_idx').on(t.subscriberId, t.id)],
);
