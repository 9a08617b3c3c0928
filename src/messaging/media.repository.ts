import { and, count, desc, eq, lt, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, text } from '../db/row.js';
import { media, mediaChunks } from '../db/schema/index.js';

export type MediaRow = Omit<typeof media.$inferSelect, 'thumbnail'>;
export type NewMediaRow = typeof media.$inferInsert;

/** Bytes per stored chunk, as attachment_chunks: a 5 MB image is 20 rows, and serving it holds one at a time. */
export const MEDIA_CHUNK_BYTES = 256 * 1024;

/** Everything but the thumbnail's bytes, which only the thumbnail route reads. */
const head = {
  id: media.id,
  key: media.key,
  filename: media.filename,
  mimeType: media.mimeType,
  size: media.size,
  width: media.width,
  height: media.height,
  alt: media.alt,
  contentHash: media.contentHash,
  uploadedBy: media.uploadedBy,
  createdAt: media.createdAt,
};

/** The row and its bytes in one transaction: a reader sees the image whole or not at all. */
export async function insertMedia(db: Executor, values: NewMediaRow, bytes: Buffer): Promise<MediaRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(media).values(values).returning(head);
    for (let seq = 0, offset = 0; offset < bytes.length; seq++, offset += MEDIA_CHUNK_BYTES) {
      await tx.insert(mediaChunks).values({ mediaId: row!.id, seq, data: bytes.subarray(offset, offset + MEDIA_CHUNK_BYTES) });
    }
    return row!;
  });
}

/** Newest first, keyset on the id (`beforeId` 0: from the newest), and how many there are. */
export async function listMedia(db: Executor, beforeId: number, limit: number): Promise<{ rows: MediaRow[]; total: number }> {
  const rows = await db
    .select(head)
    .from(media)
    .where(beforeId > 0 ? lt(media.id, beforeId) : undefined)
    .orderBy(desc(media.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(media);
  return { rows, total: total?.n ?? 0 };
}

export async function findMedia(db: Executor, id: number): Promise<MediaRow | undefined> {
  const [row] = await db.select(head).from(media).where(eq(media.id, id));
  return row;
}

export async function findMediaByKey(db: Executor, key: string): Promise<MediaRow | undefined> {
  const [row] = await db.select(head).from(media).where(eq(media.key, key));
  return row;
}

export async function thumbnailOf(db: Executor, key: string): Promise<{ thumbnail: Buffer; contentHash: string } | undefined> {
  const [row] = await db.select({ thumbnail: media.thumbnail, contentHash: media.contentHash }).from(media).where(eq(media.key, key));
  return row;
}

/** One stored chunk of an image's bytes, or undefined past the last. */
export async function mediaChunk(db: Executor, mediaId: number, seq: number): Promise<Buffer | undefined> {
  const [row] = await db
    .select({ data: mediaChunks.data })
    .from(mediaChunks)
    .where(and(eq(mediaChunks.mediaId, mediaId), eq(mediaChunks.seq, seq)));
  return row?.data;
}

export interface MediaUse {
  key: string;
  kind: 'campaign' | 'template';
  id: number;
  name: string;
}

/**
 * Campaigns (body or footer) and templates (HTML) whose text contains `/media/{key}/`, for each of the keys. The
 * keys are 128 random bits, so a match is a reference to that image and nothing else. strpos, not LIKE: the key's
 * `_` and `-` are plain characters to it. This reads every campaign's and template's text once per page of media:
 * campaigns number in the thousands, not millions, and the page is at most 100 images.
 */
export async function usesOf(db: Executor, keys: readonly string[]): Promise<MediaUse[]> {
  if (keys.length === 0) return [];
  // The keys are URL-safe base64 (no commas): one text parameter, split in SQL.
  const list = keys.join(',');
  return queryRows(
    db,
    sql`with k(key) as (select unnest(string_to_array(${list}, ',')))
        select k.key, 'campaign' as kind, c.id, coalesce(c.name, c.subject) as name
          from k join campaigns c
            on strpos(c.body, '/media/' || k.key || '/') > 0 or strpos(c.footer, '/media/' || k.key || '/') > 0
        union all
        select k.key, 'template' as kind, t.id, t.title as name
          from k join templates t on strpos(coalesce(t.content, ''), '/media/' || k.key || '/') > 0
        order by kind, id`,
    (row) => ({ key: text(row, 'key'), kind: text(row, 'kind') as MediaUse['kind'], id: int(row, 'id'), name: text(row, 'name') }),
  );
}

export async function deleteMedia(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(media).where(eq(media.id, id)).returning({ id: media.id });
  return rows.length > 0;
}
