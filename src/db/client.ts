import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Config } from '../config.js';
import { dataDirError, lockDataDir, StartupError } from './data-dir.js';
import { PgliteThread } from './pglite-thread.js';
import { optimisePgliteWasm } from './pglite-wasm.js';
import type { Row } from './row.js';
import * as schema from './schema/index.js';

/** The Drizzle database, typed against the Postgres base both drivers share. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A transaction or the database itself: repositories accept either. */
export type Executor = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute' | 'transaction'>;

/** A JS array as one array parameter of `type` (drizzle would otherwise expand it into a list of parameters). */
export const sqlArray = (values: readonly unknown[], type: string): SQL => sql`${sql.param(arrayParameter(values))}::${sql.raw(type)}[]`;

/**
 * An array of numbers, booleans, strings and nulls written as PostgreSQL's array literal in one pass; any other
 * array (dates, nested arrays) is left to the driver. node-postgres escapes each element with two regular
 * expression replacements and a string of its own: for an import's batches that was 1.8 s of CPU a million rows,
 * on the path between one statement and the next (issue 24). Strings are always quoted, so an element never reads
 * as NULL or loses its spaces; only `"` and `\` need a backslash inside quotes.
 */
export function arrayParameter(values: readonly unknown[]): readonly unknown[] | string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) parts[i] = 'NULL';
    else if (typeof value === 'string') parts[i] = `"${NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, '\\$&') : value}"`;
    else if (typeof value === 'number' || typeof value === 'bigint') parts[i] = String(value);
    else if (typeof value === 'boolean') parts[i] = value ? 't' : 'f';
    else return values;
  }
  return `{${parts.join(',')}}`;
}
const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/** One column of a batch as a typed array parameter, for `unnest(…)`: `sqlColumn(rows, 'integer', (r) => r.campaignId)`. */
export const sqlColumn = <T>(rows: readonly T[], type: string, pick: (row: T) => unknown): SQL => sqlArray(rows.map(pick), type);

/**
 * The one way to run raw SQL that answers rows, for what Drizzle's builder cannot say (routines, `for update skip
 * locked`, CTEs, `unnest` of arrays…); everything else uses the builder. It lives in repositories only, and the query
 * is a `sql` template, so values are always parameters. `mapRow` turns each row, with the database's snake_case
 * column names and the driver's value types, into the camelCase domain object the repository returns; it reads
 * columns with the typed readers of db/row.ts (`int(row, 'campaign_id')`), so no snake_case row and no `as` cast
 * reaches a service:
 *
 *   const toGrant = (row: Row): Grant => ({ key: text(row, 'r_key'), granted: int(row, 'r_granted'), … });
 *   return queryRows(db, sql`select * from send_rate_take(${keys}, …)`, toGrant);
 *
 * A statement that answers no rows is `db.execute(sql`…`)`. Hot reads outside a transaction that PostgreSQL should
 * plan once per connection use `db.prepared` (see AppDb) with the same kind of mapper.
 */
export async function queryRows<T>(db: Pick<Db, 'execute'>, query: SQL, mapRow: (row: Row) => T): Promise<T[]>;
/**
 * @deprecated The rows' type is only asserted, and they reach the caller in snake_case: give a row mapper instead.
 * src/ no longer uses it; bench seeds and test set-up still do, for ad-hoc reads of their own.
 */
export async function queryRows<T>(db: Pick<Db, 'execute'>, query: SQL): Promise<T[]>;
export async function queryRows<T>(db: Pick<Db, 'execute'>, query: SQL, mapRow?: (row: Row) => T): Promise<T[]> {
  // Both drivers answer `{ rows }`; drizzle's type for the result differs per driver, hence the one cast, here.
  const { rows } = (await db.execute(query)) as unknown as { rows: Row[] };
  return mapRow ? rows.map(mapRow) : (rows as unknown as T[]);
}

/**
 * The application's one database handle (`ctx.db`): the Drizzle database, plus what only the database itself, not a
 * transaction, offers. Repositories that need neither take an `Executor`.
 */
export type AppDb = Db & {
  readonly kind: DatabaseKind;
  /**
   * Rows of a hot read, outside any transaction, each turned into a domain object by `mapRow` (as with `queryRows`).
   * On PostgreSQL the statement is prepared once per connection under `name` (planning a join costs more than running
   * it on a page of 25); `text` must be the same for a given name.
   */
  prepared<T>(name: string, text: string, values: readonly unknown[], mapRow: (row: Row) => T): Promise<T[]>;
  /** @deprecated The rows' type is only asserted: give a row mapper (see `queryRows`). */
  prepared<T>(name: string, text: string, values: readonly unknown[]): Promise<T[]>;
};

export type DatabaseKind = 'pglite' | 'postgres';

/** The database's lifecycle, held by whoever opened it (buildApp, scripts, tests); services see only `db`. */
export interface Database {
  readonly db: AppDb;
  readonly kind: DatabaseKind;
  /** Runs `fn` while holding a cluster-wide advisory lock (serialises migrations across processes). */
  withLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /** Runs a script of several statements without parameters (migration routines only). */
  exec(script: string): Promise<void>;
  /** Embedded database only: how long its oldest unanswered statement has waited, in ms (see plugins/overload.ts). */
  waitingMs?(): number;
  /** Requests waiting for a connection (PostgreSQL's pool) or statements queued for the database thread (PGlite). */
  waiting(): number;
  /** Embedded database only: a tar of its data directory, taken in one step (see snapshot/control-socket.ts). */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string;
  poolSize?: number;
  /** PGlite data directory; `memory://` keeps it in memory. */
  dataDir?: string;
  /** PGlite only: start from this dump (a golden, already migrated database in tests). */
  loadDataDir?: Blob;
  /**
   * PGlite only: shared_buffers instead of PGlite's 128MB (the service's is PGLITE_SHARED_BUFFERS_MB). Their set-up is
   * most of PGlite's start (0.7–1.0 s against 0.25–0.3 s with 16MB here), and they were a third of the service's
   * memory in an import of a million rows.
   */
  sharedBuffers?: string;
  /**
   * PGlite only: its WebAssembly compiled by V8's optimising compiler alone (pglite-wasm.ts), for a long-running
   * process: 50 MB less memory in a large import. The service sets it; tests do not: they open many short-lived
   * databases in many processes, where the compile time counts and the memory does not.
   */
  optimisedWasm?: boolean;
}

/** The service's database, as its configuration names it (the service and `npm run db:migrate` open the same). */
export function configuredDatabase(config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'dataDir' | 'pgliteSharedBuffersMb'>): DatabaseOptions {
  return {
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: config.dataDir,
    sharedBuffers: `${config.pgliteSharedBuffersMb}MB`,
    optimisedWasm: true,
  };
}

export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return createPostgres(options.databaseUrl, options.poolSize ?? 10);
  if (options.optimisedWasm) optimisePgliteWasm();
  return createPglite(options.dataDir ?? 'memory://', options.loadDataDir, options.sharedBuffers);
}

async function createPglite(dataDir: string, loadDataDir?: Blob, sharedBuffers?: string): Promise<Database> {
  let path = dataDir;
  let unlock = () => {};
  if (!dataDir.startsWith('memory://')) {
    unlock = lockDataDir(dataDir);
    path = join(dataDir, 'pgdata');
  }
  let client: PgliteThread;
  try {
    // On a thread of its own, so its synchronous work never stops this one from serving (see pglite-thread.ts).
    client = await PgliteThread.start(path, loadDataDir, sharedBuffers);
  } catch (err) {
    unlock();
    throw dataDirError(dataDir, err) ?? new StartupError(`cannot open the embedded database in DATA_DIR ${dataDir}: ${reasonOf(err)}`, 1);
  }
  // The thread's client answers the calls drizzle's PGlite driver makes (query, transaction).
  const db = appDb(
    drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Db,
    'pglite',
    async (_name, text, values) => (await client.query<Row>(text, values as unknown[])).rows,
  );
  return {
    db,
    kind: 'pglite',
    // PGlite is one connection in one process: nothing else can race us.
    withLock: (_key, fn) => fn(),
    waitingMs: () => client.waitingMs(),
    waiting: () => client.waitingCalls,
    // Uncompressed: gzip inside the database thread took five times as long (22.7 against 4.6 s for 200,000
    // subscribers), and requests wait while it runs; the backup compresses what it writes itself.
    dumpDataDir: () => client.dumpDataDir('none'),
    exec: async (script) => {
      await client.exec(script);
    },
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
  const db = appDb(
    drizzlePg({ client: pool, schema }) as unknown as Db,
    'postgres',
    async (name, text, values) => (await pool.query<Row & pg.QueryResultRow>({ name, text, values: values as unknown[] })).rows,
  );
  return {
    db,
    kind: 'postgres',
    waiting: () => pool.waitingCount,
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
    close: () => pool.end(),
  };
}

/** The Drizzle database with the driver's prepared reads and its kind attached: one handle for the application. */
function appDb(db: Db, kind: DatabaseKind, run: (name: string, text: string, values: readonly unknown[]) => Promise<Row[]>): AppDb {
  async function prepared<T>(name: string, text: string, values: readonly unknown[], mapRow?: (row: Row) => T): Promise<T[]> {
    const rows = await run(name, text, values);
    return mapRow ? rows.map(mapRow) : (rows as unknown as T[]);
  }
  return Object.assign(db, { kind, prepared });
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
const UNREACHABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/;

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
