import { createReadStream, createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { Config } from '../../config.js';
import { createDatabase, type Database } from '../client.js';
import { CONTROL_SOCKET, DATA_DIR_PATH } from './control-socket.js';
import { SnapshotError } from './format.js';
import { openSnapshot, restoreSnapshot, type RestoreSummary } from './restore.js';
import { inSnapshotTransaction } from './session.js';
import { writeSnapshot, type SnapshotSummary } from './write.js';

/*
 * `npm run backup -- FILE` and `npm run restore -- FILE` (scripts/backup.ts, scripts/restore.ts), on whichever
 * database the configuration names: DATABASE_URL, or the embedded one in DATA_DIR.
 */

/**
 * Writes a snapshot of the configured database to `file` (written aside, then renamed: a failed backup never
 * leaves a file that looks whole). PostgreSQL is read directly; the embedded database through the running service
 * when there is one (it holds DATA_DIR), else opened here.
 */
export async function backupTo(config: Config, file: string): Promise<SnapshotSummary & { via: string }> {
  const partial = `${file}.partial`;
  const gzip = createGzip();
  const written = pipeline(gzip, createWriteStream(partial));
  let database: Database | null = null;
  try {
    let via: string;
    if (config.databaseUrl) {
      database = await createDatabase({ databaseUrl: config.databaseUrl, poolSize: 1 });
      via = 'PostgreSQL';
    } else {
      const copy = await copyFromRunningService(config.dataDir);
      database = await createDatabase({ databaseUrl: '', dataDir: copy ? 'memory://' : config.dataDir, loadDataDir: copy ?? undefined });
      via = copy ? 'the running service' : `DATA_DIR ${config.dataDir}`;
    }
    const summary = await inSnapshotTransaction(database.db, (session) => writeSnapshot(session, database!.kind, gzip));
    gzip.end();
    await written;
    renameSync(partial, file);
    return { ...summary, via };
  } catch (err) {
    gzip.destroy();
    await written.catch(() => {});
    rmSync(partial, { force: true });
    throw err;
  } finally {
    await database?.close();
  }
}

/** Loads the snapshot in `file` into the configured database, which must be empty (see restore.ts). */
export async function restoreFrom(config: Config, file: string): Promise<RestoreSummary> {
  if (!existsSync(file)) throw new SnapshotError(`no such file: ${file}`);
  const input = createReadStream(file).pipe(createGunzip());
  // A file that is not gzip fails in the stream, not in the reader: surface it as what it is.
  const broken = new Promise<never>((_, reject) =>
    input.once('error', (err) => reject(new SnapshotError(`${file} is not a snapshot written by npm run backup (${err.message})`))),
  );
  broken.catch(() => {}); // raced below; this only marks it handled until then
  try {
    const snapshot = await Promise.race([openSnapshot(input), broken]);
    const database = await createDatabase({ databaseUrl: config.databaseUrl, poolSize: 2, dataDir: config.dataDir });
    try {
      return await Promise.race([restoreSnapshot(database, snapshot), broken]);
    } finally {
      await database.close();
    }
  } finally {
    input.destroy();
  }
}

/** The running service's copy of the embedded database, or null when no service holds DATA_DIR. */
async function copyFromRunningService(dataDir: string): Promise<Blob | null> {
  const socketPath = join(dataDir, CONTROL_SOCKET);
  if (!existsSync(socketPath)) return null;
  return new Promise((resolve, reject) => {
    const call = request({ socketPath, path: DATA_DIR_PATH, method: 'GET' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode === 200) resolve(new Blob(chunks));
        else reject(new SnapshotError(`the running service could not copy its database (HTTP ${response.statusCode}): see its log`));
      });
      response.on('error', reject);
    });
    call.on('error', (err: NodeJS.ErrnoException) => {
      // A socket file with nobody listening: the service that made it is gone, so DATA_DIR can be opened here.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
    call.end();
  });
}
