import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/*
 * An uploaded import file parked on disk before it is imported: the request's body arrives at the speed of the
 * network and the disk, not of the database (a million rows streamed straight in outlasted REQUEST_TIMEOUT_MS on a
 * slow machine), and form fields sent after the file (the public phpList JS client sends `file`, then `list_id`)
 * arrive before the import starts. The bytes go straight to a file, never into memory; the import then streams
 * them back from disk.
 */

export interface SpooledFile {
  /** A fresh stream over the spooled bytes. */
  open(): Readable;
  /** Deletes the file and its directory; safe to call more than once. */
  remove(): Promise<void>;
}

/** Writes the stream into a new directory under `dir`; on failure nothing is left behind and the error is rethrown. */
export async function spool(upload: Readable, dir: string): Promise<SpooledFile> {
  await mkdir(dir, { recursive: true });
  const own = await mkdtemp(join(dir, 'import-'));
  const path = join(own, 'upload.csv');
  const remove = () => rm(own, { recursive: true, force: true });
  try {
    // Destroyed while the directory was made (the body ended inside the file): pipeline() would wait forever.
    if (upload.destroyed) throw Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    await pipeline(upload, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await remove();
    throw err;
  }
  return { open: () => createReadStream(path), remove };
}
