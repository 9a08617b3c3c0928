import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { ThreadReply, ThreadRequest, ThreadStart, WireError } from './pglite-thread.js';

/*
 * The embedded database's own thread (see pglite-thread.ts): it owns the PGlite instance and runs what the main
 * thread asks, one message per call. PGlite's own mutexes keep the order: a plain query waits while a transaction is
 * open, and a transaction's statements run on it alone.
 */

const port = parentPort!;
const start = workerData as ThreadStart;

/** Transactions open on behalf of the main thread, by id: their handle and how to end them. */
interface OpenTransaction {
  tx: Transaction;
  finish(commit: boolean): void;
  done: Promise<void>;
}
const transactions = new Map<number, OpenTransaction>();
let nextTransaction = 1;

/**
 * The properties of an error that say what went wrong (SQLSTATE code, detail, errno…), for the main thread. Emscripten's
 * file-system errors (a full or read-only DATA_DIR) are plain objects with an `errno`, not Errors.
 */
function wireError(err: unknown): WireError {
  if (typeof err !== 'object' || err === null) return { name: 'Error', message: String(err), props: {} };
  const props: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(err)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') props[key] = value;
  }
  const { name, message, stack, cause } = err as { name?: unknown; message?: unknown; stack?: unknown; cause?: unknown };
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : String(err),
    stack: typeof stack === 'string' ? stack : undefined,
    props,
    cause: cause === undefined ? undefined : wireError(cause),
  };
}

/** Drizzle's parsers keep these types as PostgreSQL's text (they are identity functions, which cannot be posted). */
const keepText = (oids: number[] | undefined) => oids && Object.fromEntries(oids.map((oid) => [oid, (value: string) => value]));

function begin(db: PGlite): Promise<number> {
  const id = nextTransaction++;
  return new Promise((resolve, reject) => {
    let begun = false;
    const done = db.transaction(async (tx) => {
      const commit = await new Promise<boolean>((finish) => {
        transactions.set(id, { tx, finish, done });
        begun = true;
        resolve(id);
      });
      if (!commit) await tx.rollback();
    });
    done.catch((err: unknown) => {
      if (!begun) reject(err);
    });
  });
}

async function end(id: number, commit: boolean): Promise<void> {
  const open = transactions.get(id);
  if (!open) throw new Error(`no open transaction ${id}`);
  transactions.delete(id);
  open.finish(commit);
  await open.done; // COMMIT of an aborted transaction rejects here, as it does in PGlite itself
}

async function run(db: PGlite, request: ThreadRequest): Promise<unknown> {
  switch (request.op) {
    case 'query': {
      const target = request.tx ? transactions.get(request.tx)?.tx : db;
      if (!target) throw new Error(`no open transaction ${request.tx}`);
      const parsers = keepText(request.keepText);
      return target.query(request.sql, request.params, { rowMode: request.rowMode, ...(parsers ? { parsers } : {}) });
    }
    case 'exec': {
      const target = request.tx ? transactions.get(request.tx)?.tx : db;
      if (!target) throw new Error(`no open transaction ${request.tx}`);
      await target.exec(request.sql);
      return undefined;
    }
    case 'begin':
      return begin(db);
    case 'end':
      return end(request.tx, request.commit);
    case 'dump': {
      const blob = await db.dumpDataDir(request.compression);
      return new Uint8Array(await blob.arrayBuffer());
    }
    case 'close':
      await db.close();
      return undefined;
  }
}

/** Opens the database; a failure (DATA_DIR not writable, full…) is reported and the thread ends by itself. */
async function open(): Promise<PGlite | undefined> {
  try {
    const loadDataDir = start.loadDataDir ? new Blob([start.loadDataDir]) : undefined;
    // pg_trgm backs the e-mail substring search's index (routines/050_subscriber_email_trigram.sql).
    const startParams = start.sharedBuffers ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${start.sharedBuffers}`] : undefined;
    return await PGlite.create(start.path, {
      extensions: { pg_trgm },
      ...(loadDataDir ? { loadDataDir } : {}),
      ...(startParams ? { startParams } : {}),
    });
  } catch (err) {
    port.postMessage({ started: false, error: wireError(err) });
    return undefined;
  }
}

const db = await open();
if (db) {
  port.on('message', (request: ThreadRequest) => {
    run(db, request).then(
      (value) => port.postMessage({ id: request.id, value } satisfies ThreadReply),
      (err: unknown) => port.postMessage({ id: request.id, error: wireError(err) } satisfies ThreadReply),
    );
  });
  port.postMessage({ started: true });
}
