import { sql } from 'drizzle-orm';
import { boolean, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { administrators } from './identity.js';
import { campaigns } from './messaging.js';

/*
 * Segments: saved definitions of "the subscribers who match" (src/segments/), and the definition a campaign is sent
 * with, frozen into the campaign when it is submitted so that editing or deleting the segment later changes nothing
 * about a send under way.
 */

export const segments = pgTable(
  'segments',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description'),
    /** The checked definition as the client wrote it (docs/api.md "Segments"). */
    definition: jsonb('definition').notNull(),
    createdBy: integer('created_by').references(() => administrators.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('segments_name_key').on(sql`lower(${t.name})`)],
);

/**
 * The segment a submitted campaign goes to (its `options.user_selection` is `segment:<id>`). With lists, it narrows
 * their members; without, the whole subscriber table is walked by id in chunks, and `frozen_through_subscriber_id`
 * / `frozen_at` record that walk's progress as campaign_audience_sources does for a list.
 */
export const campaignSegments = pgTable('campaign_segments', {
  campaignId: integer('campaign_id')
    .primaryKey()
    .references(() => campaigns.id, { onDelete: 'cascade' }),
  segmentId: integer('segment_id'),
  definition: jsonb('definition').notNull(),
  /** Whether the campaign's own lists are narrowed (true) or the segment alone is the audience (false). */
  narrowsLists: boolean('narrows_lists').notNull().default(false),
  frozenThroughSubscriberId: integer('frozen_through_subscriber_id').notNull().default(0),
  frozenAt: timestamp('frozen_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
