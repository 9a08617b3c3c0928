import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { administrators } from './identity.js';
import { lists, subscribers } from './subscription.js';

/*
 * The messaging area: templates, campaigns, their lists and attachments, bounces and bounce rules.
 * Laid down in one step so that the messaging, sending and tracking work could proceed side by side.
 */

export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

export const templates = pgTable(
  'templates',
  {
    id: serial('id').primaryKey(),
    title: text('title').notNull(),
    /** HTML with the `[CONTENT]` placeholder. */
    content: text('content'),
    text: text('text'),
    /** The bytes of the optional uploaded file (specification: "the file content of the template"). */
    file: bytea('file'),
    listOrder: integer('list_order').notNull().default(0),
    ...timestamps,
  },
  (t) => [uniqueIndex('templates_title_key').on(sql`lower(${t.title})`)],
);

/** Images a template embeds; sent as inline MIME parts. */
export const templateImages = pgTable(
  'template_images',
  {
    id: serial('id').primaryKey(),
    templateId: integer('template_id').references(() => templates.id, { onDelete: 'cascade' }),
    mimeType: text('mime_type'),
    filename: text('filename'),
    data: bytea('data'),
    width: integer('width'),
    height: integer('height'),
  },
  (t) => [index('template_images_template_id_idx').on(t.templateId)],
);

/**
 * Campaigns (phpList "messages"). Status values and transitions: reference §7.1. The `as_*` columns count
 * recipients by the format they were sent.
 */
/** What `campaigns.editor` holds; `outdated`: the body was replaced since by a client that did not send the document. */
export interface CampaignEditorDocument {
  format: 'visual' | 'richtext' | 'markdown' | 'html' | 'text';
  source: string | null;
  outdated: boolean;
}

export const campaigns = pgTable(
  'campaigns',
  {
    id: serial('id').primaryKey(),
    /** 36 lowercase hex characters (reference §6.14). */
    uniqueId: text('unique_id').notNull(),
    ownerId: integer('owner_id').references(() => administrators.id, { onDelete: 'set null' }),
    templateId: integer('template_id').references(() => templates.id, { onDelete: 'set null' }),
    // content
    subject: text('subject').notNull().default('(no subject)'),
    /** Ours: what the console's tables and titles call the campaign, apart from its subject. Null before issue 26. */
    name: text('name'),
    /** The body, HTML or text per `send_format`. */
    body: text('body').notNull().default(''),
    textBody: text('text_body').notNull().default(''),
    footer: text('footer').notNull().default(''),
    /**
     * The console editor's own document beside the body it produced (Mailroom's `content.editor`, docs/api.md): the
     * format it was written in and its source (block JSON, Markdown); null for campaigns written as plain HTML/text.
     */
    editor: jsonb('editor').$type<CampaignEditorDocument>(),
    // format
    sendFormat: text('send_format').notNull().default('html'),
    htmlFormatted: boolean('html_formatted').notNull().default(true),
    asText: integer('as_text').notNull().default(0),
    asHtml: integer('as_html').notNull().default(0),
    asTextAndHtml: integer('as_text_and_html').notNull().default(0),
    asPdf: integer('as_pdf').notNull().default(0),
    asTextAndPdf: integer('as_text_and_pdf').notNull().default(0),
    // metadata
    status: text('status').notNull().default('draft'),
    processed: integer('processed').notNull().default(0),
    views: integer('views').notNull().default(0),
    bounceCount: integer('bounce_count').notNull().default(0),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    sendStart: timestamp('send_start', { withTimezone: true }),
    // schedule (intervals in minutes)
    embargo: timestamp('embargo', { withTimezone: true }).notNull().defaultNow(),
    repeatInterval: integer('repeat_interval').notNull().default(0),
    repeatUntil: timestamp('repeat_until', { withTimezone: true }),
    requeueInterval: integer('requeue_interval').notNull().default(0),
    requeueUntil: timestamp('requeue_until', { withTimezone: true }),
    // options
    fromField: text('from_field').notNull().default(''),
    toField: text('to_field').notNull().default(''),
    replyTo: text('reply_to').notNull().default(''),
    userSelection: text('user_selection'),
    /** Rewrite links for click tracking when sending. */
    clickTrack: boolean('click_track').notNull().default(true),
    /** When a worker last finished freezing the audience into deliveries (the campaign's `prepared` step). */
    audienceFrozenAt: timestamp('audience_frozen_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('campaigns_unique_id_key').on(t.uniqueId),
    index('campaigns_owner_id_idx').on(t.ownerId, t.id),
    // The sender's "what is due" scan.
    index('campaigns_status_embargo_idx').on(t.status, t.embargo),
  ],
);

/** Which lists a campaign goes to (phpList "list-messages"). */
export const listCampaigns = pgTable(
  'list_campaigns',
  {
    id: serial('id').primaryKey(),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    listId: integer('list_id')
      .notNull()
      .references(() => lists.id, { onDelete: 'cascade' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('list_campaigns_campaign_list_key').on(t.campaignId, t.listId), index('list_campaigns_list_id_idx').on(t.listId)],
);

/** Campaign attachments. The bytes live in attachment storage under their SHA-256 (`content_hash`). */
export const attachments = pgTable(
  'attachments',
  {
    id: serial('id').primaryKey(),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    mimeType: text('mime_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    description: text('description'),
    contentHash: text('content_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('attachments_campaign_id_idx').on(t.campaignId), index('attachments_content_hash_idx').on(t.contentHash)],
);

/**
 * Attachment bytes kept in the database (ATTACHMENT_STORE=database, the default with PostgreSQL), so that every
 * process sending a campaign reads the same bytes whatever its DATA_DIR: `seq`-numbered chunks of at most 256 KiB
 * under the content's SHA-256. An upload is written under `tmp:<random>` and renamed to its hash in one statement
 * once complete, so readers never see half a file; `created_at` lets a later upload sweep what a crash left.
 */
export const attachmentChunks = pgTable(
  'attachment_chunks',
  {
    contentHash: text('content_hash').notNull(),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.contentHash, t.seq] })],
);

/** Bounce regex rules (reference §5.16), applied in `list_order` to each incoming bounce. */
export const bounceRules = pgTable(
  'bounce_rules',
  {
    id: serial('id').primaryKey(),
    regex: text('regex').notNull(),
    /** md5 of `regex`; unique (reference §8.1). */
    regexHash: text('regex_hash').notNull(),
    action: text('action').notNull(),
    listOrder: integer('list_order').notNull().default(0),
    adminId: integer('admin_id').references(() => administrators.id, { onDelete: 'set null' }),
    comment: text('comment'),
    status: text('status').notNull().default('active'),
    /** Bounces matched so far. */
    matchCount: integer('match_count').notNull().default(0),
    ...timestamps,
  },
  (t) => [uniqueIndex('bounce_rules_regex_hash_key').on(t.regexHash)],
);

/**
 * Bounces received. Linked to the campaign, subscriber and delivery they were matched to (null when unmatched).
 * The raw message is kept for the rules and for audit; only `GET /bounces/{id}` returns it (the console's view).
 */
export const bounces = pgTable(
  'bounces',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    /** `unidentified`, `bounced list message`, `bounced system message`, `complaint` … */
    status: text('status'),
    /** `hard`, `soft`, `complaint` or null when unknown. */
    kind: text('kind'),
    comment: text('comment'),
    header: text('header'),
    data: text('data'),
    campaignId: integer('campaign_id').references(() => campaigns.id, { onDelete: 'set null' }),
    subscriberId: integer('subscriber_id').references(() => subscribers.id, { onDelete: 'set null' }),
    deliveryId: bigint('delivery_id', { mode: 'number' }),
    /** Message-ID of the bounce message, so a message read twice (mailbox and HTTP) is stored once. */
    messageId: text('message_id'),
  },
  (t) => [
    // A campaign's bounces by id (its report's list).
    index('bounces_campaign_id_idx').on(t.campaignId, t.id),
    index('bounces_subscriber_id_idx').on(t.subscriberId, t.id),
    index('bounces_status_idx').on(t.status, t.id),
    uniqueIndex('bounces_message_id_key').on(t.messageId),
    // The consecutive-bounce rule asks, for a subscriber's latest deliveries, which of them bounced.
    index('bounces_delivery_id_idx')
      .on(t.deliveryId)
      .where(sql`${t.deliveryId} is not null`),
  ],
);

/**
 * Every bounce message ever processed, by its Message-ID (or a digest of its bytes), kept when a bounce rule deletes
 * the bounce itself: a message read twice (from the mailbox and over HTTP, or after a crash before the mailbox move)
 * is processed once, so counts and thresholds never see it twice.
 */
export const bounceReceipts = pgTable('bounce_receipts', {
  messageId: text('message_id').primaryKey(),
  /** The bounce stored for it (no foreign key: the bounce may have been deleted since). */
  bounceId: bigint('bounce_id', { mode: 'number' }).notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Bounces counted but not yet added to `campaigns.bounce_count`, `campaign_counters.bounces` and
 * `bounce_rules.match_count`: one row per bounce, appended in the bounce's own transaction (src/messaging/bounce-processing.repository.ts) and
 * moved into those counters by `fold_bounce_counts` (src/db/routines/040_bounce_counts.sql) a moment later.
 * Every bounce of a campaign would otherwise update the same three rows and hold their locks through its commit's
 * WAL flush, one bounce at a time. No foreign keys: a campaign or rule deleted meanwhile is skipped by the fold.
 */
export const bounceCountIncrements = pgTable('bounce_count_increments', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** The campaign a counted bounce adds to (null: not counted for a campaign). */
  campaignId: integer('campaign_id'),
  /** The bounce rule that matched (null: none). */
  ruleId: integer('rule_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
