import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import type { Executor } from '../db/client.js';
import { databaseStorage } from './attachment-db-storage.js';
import { TooLargeError } from './attachment-too-large.js';

/**
 * Where attachment bytes live, addressed by their SHA-256: on one process's disk (diskStorage) or in the shared
 * database (attachment-db-storage.ts); an object store could take either's place. `exists` and `remove` take the
 * caller's transaction, which a database store works in (the disk ignores it).
 */
export interface AttachmentStorage {
  /** Stores the stream's bytes (hashed while they flow, never held in memory whole). Throws what the stream throws. */
  put(stream: Readable, options?: { maxBytes?: number }): Promise<{ hash: string; size: number }>;
  /** A stream of the stored bytes, or null when there are none under this hash. */
  open(hash: string, options?: { chunkSize?: number }): Promise<Readable | null>;
  exists(hash: string, tx?: Executor): Promise<boolean>;
  /** Removes the bytes; removing what is not there is not an error. */
  remove(hash: string, tx?: Executor): Promise<void>;
}

const HASH = /^[0-9a-f]{64}$/;

/**
 * Files under `root/ab/cd/<hash>` (two levels of fan-out keep directories small at millions of files). A put
 * writes to `root/tmp` first and renames into place, so a half-written file is never visible under its hash.
 */
export function diskStorage(root: string): AttachmentStorage {
  const tmp = join(root, 'tmp');
  const pathOf = (hash: string) => {
    if (!HASH.test(hash)) throw new Error('invalid attachment hash');
    return join(root, hash.slice(0, 2), hash.slice(2, 4), hash);
  };

  return {
    async put(stream, options = {}) {
      await mkdir(tmp, { recursive: true });
      const temporary = join(tmp, randomBytes(16).toString('hex'));
      const digest = createHash('sha256');
      let size = 0;
      const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
      // Created before any byte flows: a write stream opening its file lazily could create it after an upload
      // failed and the clean-up below had already run, leaving it behind.
      const file = await open(temporary, 'wx');
      try {
        await pipeline(
          stream,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length;
              if (size > maxBytes) throw new TooLargeError(maxBytes);
              digest.update(chunk);
              yield chunk;
            }
          },
          file.createWriteStream(),
        );
        const hash = digest.digest('hex');
        const target = pathOf(hash);
        await mkdir(join(target, '..'), { recursive: true });
        // Same bytes already stored: keep the one copy.
        if (await exists(target)) await unlink(temporary);
        else await rename(temporary, target);
        return { hash, size };
      } catch (err) {
        await file.close().catch(() => undefined);
        await unlink(temporary).catch(() => undefined);
        throw err;
      }
    },

    async open(hash, options = {}) {
      try {
        const handle = await open(pathOf(hash), 'r');
        return handle.createReadStream({ highWaterMark: options.chunkSize ?? 64 * 1024, autoClose: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },

    exists: (hash) => exists(pathOf(hash)),

    async remove(hash) {
      await unlink(pathOf(hash)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The storage the service uses (ATTACHMENT_STORE): the database, the default with PostgreSQL, where every process
 * sees the same bytes; or `DATA_DIR/attachments`, the default with embedded PGlite (one process anyway).
 */
export function attachmentStorage(ctx: { readonly config: Config; readonly db: Executor }): AttachmentStorage {
  return ctx.config.attachmentStore === 'database' ? databaseStorage(ctx.db) : diskStorage(join(ctx.config.dataDir, 'attachments'));
}
