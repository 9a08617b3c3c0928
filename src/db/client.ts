import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { dataDirError, lockDataDir, StartupError } from './data-dir.js';
import { PgliteThread } from './pglite-thread.js';
import * as schema from './schema/index.js';

/** The Drizzle database, typed against the Postgres base both drivers share. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A transaction or the database itself: repositories accept either. */
export type Executor = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute' | 'transaction'>;

/** A JS array as one array parameter of `type` (drizzle would otherwise expand it into a list of parameters). */
export const sqlArray = (values: readonly unknown[], type: string): SQL => sql`${sql.param(values)}::${sql.raw(type)}[]`;

/** Rows of a raw SQL query. Both drivers answer `{ rows }`; this gives them a type. */
export async function queryRows<T>(db: Pick<Db, 'execute'>, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` while holding a cluster-wide advisory lock (serialises migrations across processes). */
  withLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /** Runs a script of several statements without parameters (migration routines only). */
  exec(script: string): Promise<void>;
  /**
   * Rows of a hot read, outside any transaction. On PostgreSQL the statement is prepared once per connection under
   * `name` (planning a join costs more than running it on a page of 25); `text` must be the same for a given name.
   */
  prepared<T>(name: string, text: string, values: readonly unknown[]): Promise<T[]>;
  /** Embedded database only: how long its oldest unanswered statement has waited, in ms (see plugins/overload.ts). */
  waitingMs?(): number;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string;
  poolSize?: number;
  /** PGlite data directory; `memory://` keeps it in memory. */
  dataDir?: string;
  /** PGlite only: start from this dump (a golden, already migrated database in tests). */
  loadDataDir?: Blob;
}

export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return createPostgres(options.databaseUrl, options.poolSize ?? 10);
  return createPglite(options.dataDir ?? 'memory://', options.loadDataDir);
}

async function createPglite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  let path = dataDir;
  let unlock = () => {};
  if (!dataDir.startsWith('memory://')) {
    unlock = lockDataDir(dataDir);
    path = join(dataDir, 'pgdata');
  }
  let client: PgliteThread;
  try {
    // On a thread of its own, so its synchronous work never stops this one from serving (see pglite-thread.ts).
    client = await PgliteThread.start(path, loadDataDir);
  } catch (err) {
    unlock();
    throw dataDirError(dataDir, err) ?? new StartupError(`cannot open the embedded database in DATA_DIR ${dataDir}: ${reasonOf(err)}`, 1);
  }
  // The thread's client answers the calls drizzle's PGlite driver makes (query, transaction).
  const db = drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    // PGlite is one connection in one process: nothing else can race us.
    withLock: (_key, fn) => fn(),
    waitingMs: () => client.waitingMs(),
    exec: async (script) => {
      await client.exec(script);
    },
    prepared: async <T>(_name: string, text: string, values: readonly unknown[]) =>
      (await client.query<T>(text, values as unknown[])).rows,
    close: async () => {
      try {
        await client.close();
      } finally {
        unlock();
      }
    },
  };
}

async function createPostgres(url: string, poolSize: number): Promise<Database> {
  // No JIT: the service runs short queries, and JIT only starts on a misestimated plan, adding 100+ ms to it.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options: '-c jit=off' });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  try {
    // One connection now, so an unreachable database is reported at start in one line, not at the first query.
    (await pool.connect()).release();
  } catch (err) {
    await pool.end().catch(() => {});
    throw new StartupError(`cannot connect to PostgreSQL at ${describeTarget(url)}: ${reasonOf(err)}`, 69);
  }
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    async withLock(key, fn) {
      // A connection of its own: holding one of the pool's could starve `fn` of connections.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [key]);
        return await fn();
      } finally {
        await client.end(); // ending the session releases the lock
      }
    },
    exec: async (script) => {
      await pool.query(script);
    },
    prepared: async <T>(name: string, text: string, values: readonly unknown[]) =>
      (await pool.query<T & pg.QueryResultRow>({ name, text, values: values as unknown[] })).rows,
    close: () => pool.end(),
  };
}

/** `host:port/database` of a connection string, without user or password. */
function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    return `${host}:${parsed.port || '5432'}/${decodeURIComponent(parsed.pathname.slice(1))}`;
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

/** A driver error's own words; a refused connection to a name with several addresses is an AggregateError. */
function reasonOf(err: unknown): string {
  const { message, code, errors } = err as { message?: unknown; code?: unknown; errors?: unknown };
  if (typeof message === 'string' && message) return message;
  if (Array.isArray(errors) && errors.length > 0) return reasonOf(errors[0]);
  return typeof code === 'string' ? code : String(err);
}

/** Node's socket errors that mean the database cannot be reached. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/** node-postgres's own words for a lost or unobtainable connection (it gives them no code). */
const UNREACHABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/;

/**
 * Whether a query failed because the database cannot be reached (refused, lost, shutting down, starting up, out of
 * connections) rather than because of the query: such a request is answered 503, not 500. Drizzle wraps the
 * driver's error, which then sits on `cause`.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      // Class 08: connection exception; 57P01-57P03: shutting down or starting; 53300: too many connections.
      if (UNREACHABLE_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300') return true;
    }
    if (typeof message === 'string' && UNREACHABLE_MESSAGE.test(message)) return true;
  }
  return false;
}
