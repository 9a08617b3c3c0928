import { integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { administrators } from './identity.js';
import { bytea } from './messaging.js';

/**
 * The media library (issue 26): images uploaded for campaigns and templates, served publicly at
 * `/media/{key}/{filename}`. `key` is random (not the id), so the addresses of images not yet mailed cannot be
 * counted through; the bytes never change under a key, which is what lets them be cached as immutable.
 */
export const media = pgTable(
  'media',
  {
    id: serial('id').primaryKey(),
    /** 22 URL-safe characters (128 random bits), the public address's first segment. */
    key: text('key').notNull(),
    /** The uploaded name made safe for a URL, ending in the extension of the type the bytes are. */
    filename: text('filename').notNull(),
    /** Detected from the bytes: image/png, image/jpeg, image/gif or image/webp. */
    mimeType: text('mime_type').notNull(),
    size: integer('size').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    alt: text('alt').notNull().default(''),
    /** SHA-256 of the bytes, hex: the strong ETag. */
    contentHash: text('content_hash').notNull(),
    /** A WebP at most 320 pixels on its longer side, made at upload. */
    thumbnail: bytea('thumbnail').notNull(),
    uploadedBy: integer('uploaded_by').references(() => administrators.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('media_key_key').on(t.key)],
);

/**
 * The bytes of a media item in `seq`-numbered chunks of at most 256 KiB (as attachment_chunks), so that serving one
 * holds a chunk in memory at a time. Written in the same transaction as the media row: no reader sees half an image.
 */
export const mediaChunks = pgTable(
  'media_chunks',
  {
    mediaId: integer('media_id')
      .notNull()
      .references(() => media.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.mediaId, t.seq] })],
);
