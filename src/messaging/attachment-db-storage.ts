import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { and, eq, like, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { attachmentChunks } from '../db/schema/index.js';
import type { AttachmentStorage } from './attachment-storage.js';
import { TooLargeError } from './attachment-too-large.js';
import { lockHash } from './attachment.repository.js';

/*
 * Attachment bytes in the database (table `attachment_chunks`), for several processes on one PostgreSQL: whichever
 * worker sends a campaign reads the same bytes, whatever its DATA_DIR. An upload is held in memory one stored chunk
 * at a time (256 KiB), never whole; a download reads one stored chunk at a time and hands it on in the caller's
 * chunk size.
 */

/** Bytes per row: large enough that a 25 MB file is 100 rows, small enough that a read holds little memory. */
export const STORED_CHUNK_BYTES = 256 * 1024;
const HASH = /^[0-9a-f]{64}$/;
/** Uploads a crash cut short are swept by a later upload once this old. */
const ABANDONED_AFTER = '1 day';

function checked(hash: string): string {
  if (!HASH.test(hash)) throw new Error('invalid attachment hash');
  return hash;
}

export function databaseStorage(db: Executor): AttachmentStorage {
  const hasChunks = async (executor: Executor, hash: string) =>
    (
      await executor
        .select({ seq: attachmentChunks.seq })
        .from(attachmentChunks)
        .where(and(eq(attachmentChunks.contentHash, hash), eq(attachmentChunks.seq, 0)))
    ).length > 0;

  return {
    async put(stream, options = {}) {
      await db
        .delete(attachmentChunks)
        .where(and(like(attachmentChunks.contentHash, 'tmp:%'), lt(attachmentChunks.createdAt, sql`now() - ${ABANDONED_AFTER}::interval`)));
      // Written under a name of its own until complete, so no reader ever sees part of a file under its hash.
      const temporary = `tmp:${randomBytes(16).toString('hex')}`;
      const digest = createHash('sha256');
      const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
      let size = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const writePending = async () => {
        if (pendingBytes === 0) return;
        const data = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await db.insert(attachmentChunks).values({ contentHash: temporary, seq: seq++, data });
      };
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxBytes) throw new TooLargeError(maxBytes);
          digest.update(chunk);
          for (let offset = 0; offset < chunk.length;) {
            const take = Math.min(STORED_CHUNK_BYTES - pendingBytes, chunk.length - offset);
            pending.push(chunk.subarray(offset, offset + take));
            pendingBytes += take;
            offset += take;
            if (pendingBytes === STORED_CHUNK_BYTES) await writePending();
          }
        }
        await writePending();
        const hash = digest.digest('hex');
        await db.transaction(async (tx) => {
          // Under the hash's lock (the one the attachment rows take): two uploads of the same bytes keep one copy.
          await lockHash(tx, hash);
          if (await hasChunks(tx, hash)) await tx.delete(attachmentChunks).where(eq(attachmentChunks.contentHash, temporary));
          else await tx.update(attachmentChunks).set({ contentHash: hash }).where(eq(attachmentChunks.contentHash, temporary));
        });
        return { hash, size };
      } catch (err) {
        await db
          .delete(attachmentChunks)
          .where(eq(attachmentChunks.contentHash, temporary))
          .catch(() => undefined);
        throw err;
      }
    },

    async open(hash, options = {}) {
      checked(hash);
      if (!(await hasChunks(db, hash))) return null;
      const size = Math.max(1, options.chunkSize ?? 64 * 1024);
      async function* chunks(): AsyncGenerator<Buffer> {
        for (let seq = 0; ; seq++) {
          const [row] = await db
            .select({ data: attachmentChunks.data })
            .from(attachmentChunks)
            .where(and(eq(attachmentChunks.contentHash, hash), eq(attachmentChunks.seq, seq)));
          if (!row) return;
          for (let offset = 0; offset < row.data.length; offset += size) yield row.data.subarray(offset, offset + size);
        }
      }
      return Readable.from(chunks(), { objectMode: false, highWaterMark: size });
    },

    exists: (hash, executor = db) => hasChunks(executor, checked(hash)),

    async remove(hash, executor = db) {
      await executor.delete(attachmentChunks).where(eq(attachmentChunks.contentHash, checked(hash)));
    },
  };
}
