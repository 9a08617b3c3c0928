import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Database } from '../client.js';
import { migrate } from '../migrate.js';
import { appliedMigrations, quoteIdent, storedColumns, tablesInDependencyOrder, type SqlSession } from './catalog.js';
import {
  knownMigrations,
  SEEDED_TABLES,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  SnapshotError,
  type SnapshotEnd,
  type SnapshotHeader,
  type TableHeader,
} from './format.js';
import { drizzleSession } from './session.js';

/** Rows per insert, and the most JSON text one insert carries: fast, and far below any parameter limit. */
const BATCH_ROWS = 5_000;
const BATCH_CHARS = 8 * 1024 * 1024;

export interface RestoreSummary {
  readonly tables: number;
  readonly rows: number;
  readonly schema: SnapshotHeader['schema'];
}

export interface SnapshotReader {
  readonly header: SnapshotHeader;
  /** The next line; `what` names it in the error when the file ends before it. */
  next(what: string): Promise<string>;
}

/**
 * Opens a snapshot and checks its header (format, version, schema), before anything touches a database: a file that
 * is not a snapshot, or one of another schema, is refused without creating the target (a new DATA_DIR is a fresh
 * PostgreSQL cluster, seconds of work and a directory left behind).
 */
export async function openSnapshot(input: Readable): Promise<SnapshotReader> {
  const lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const next = async (what: string): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new SnapshotError(`the snapshot ends early (expected ${what}): the file is cut off or damaged`);
    return line.value;
  };
  const header = parseLine<SnapshotHeader>(await next('its header'), 'header');
  checkHeader(header);
  return { header, next };
}

/**
 * Loads an opened snapshot (format.ts; openSnapshot checked its header) into `database`, which must hold no data:
 * it is migrated first (so an empty PostgreSQL database or a new DATA_DIR gets the schema), then every table is
 * filled in one transaction, with the tables' own triggers off (the counters they keep are in the snapshot already)
 * and the sequences moved past the restored ids. Anything wrong — data in the way, a cut-off file — throws a SnapshotError and writes nothing.
 */
export async function restoreSnapshot(database: Database, snapshot: SnapshotReader): Promise<RestoreSummary> {
  const { header, next } = snapshot;
  // Checked before migrating too, so a database with data in it is refused untouched (not upgraded first).
  if ((await appliedMigrationsOf(database)) > 0) await refuseData(drizzleSession(database.db));
  await migrate(database);
  return database.db.transaction(async (tx) => {
    const session = drizzleSession(tx);
    await refuseData(session);
    let rows = 0;
    let tables = 0;
    for (;;) {
      const line = parseLine<TableHeader | SnapshotEnd>(await next('a table or the end'), 'table header');
      if ('end' in line) {
        if (line.tables !== tables || line.rows !== rows) {
          throw new SnapshotError(`the snapshot says ${line.tables} tables and ${line.rows} rows, but holds ${tables} and ${rows}`);
        }
        break;
      }
      rows += await restoreTable(session, line, next);
      tables++;
    }
    await moveSequences(session);
    return { tables, rows, schema: header.schema };
  });
}

const appliedMigrationsOf = (database: Database) => appliedMigrations(drizzleSession(database.db));

function parseLine<T>(line: string, what: string): T {
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new SnapshotError(`the snapshot's ${what} is not JSON: is this a file written by npm run backup?`);
  }
}

function checkHeader(header: SnapshotHeader): void {
  if (header.format !== SNAPSHOT_FORMAT) throw new SnapshotError('this is not a Mailroom snapshot (written by npm run backup)');
  if (header.version > SNAPSHOT_VERSION) {
    throw new SnapshotError(
      `the snapshot's format is version ${header.version}; this Mailroom reads version ${SNAPSHOT_VERSION}: upgrade Mailroom first`,
    );
  }
  const known = knownMigrations();
  if (header.schema.migrations > known.length) {
    throw new SnapshotError(
      `the snapshot comes from a newer Mailroom (schema ${header.schema.migrations}, ${header.schema.last ?? '?'}); ` +
        `this one knows schema ${known.length} (${known.at(-1) ?? '?'}): upgrade Mailroom, then restore`,
    );
  }
  if (header.schema.migrations < known.length) {
    // Later migrations may move data as well as add columns; restoring old rows into the new shape would skip that.
    throw new SnapshotError(
      `the snapshot comes from an older Mailroom (schema ${header.schema.migrations}, ${header.schema.last ?? '?'}); ` +
        `this one is at schema ${known.length}: restore it with the Mailroom that wrote it, start that once on the ` +
        'restored database, upgrade, then back up again',
    );
  }
}

/** Refuses a database that already holds data (beyond the rows the migrations seed). */
async function refuseData(session: SqlSession): Promise<void> {
  for (const table of await tablesInDependencyOrder(session)) {
    if (SEEDED_TABLES.has(table)) continue;
    const { rows } = await session.query(`select exists (select 1 from ${quoteIdent(table)}) as any`);
    if (rows[0]?.any) {
      throw new SnapshotError(`the target database is not empty (table ${table} holds data): restore into a new, empty database`);
    }
  }
}

async function restoreTable(session: SqlSession, table: TableHeader, next: (what: string) => Promise<string>): Promise<number> {
  const present = new Set(await storedColumns(session, table.table));
  if (present.size === 0) throw new SnapshotError(`the snapshot holds table ${table.table}, which this schema does not have`);
  const missing = table.columns.filter((column) => !present.has(column));
  if (missing.length > 0) throw new SnapshotError(`table ${table.table} has no column ${missing.join(', ')} here`);
  const name = quoteIdent(table.table);
  const list = table.columns.map(quoteIdent).join(', ');
  // The triggers keep counters and checks the snapshot already holds the results of; off only in this transaction.
  await session.query(`alter table ${name} disable trigger user`);
  if (SEEDED_TABLES.has(table.table)) await session.query(`delete from ${name}`);
  let batch: string[] = [];
  let chars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await session.query(`insert into ${name} (${list}) select ${list} from json_populate_recordset(null::${name}, $1::json)`, [
      `[${batch.join(',')}]`,
    ]);
    batch = [];
    chars = 0;
  };
  for (let i = 0; i < table.rows; i++) {
    const row = await next(`row ${i + 1} of ${table.rows} of table ${table.table}`);
    batch.push(row);
    chars += row.length;
    if (batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) await flush();
  }
  await flush();
  await session.query(`alter table ${name} enable trigger user`);
  return table.rows;
}

/** Every sequence owned by a column moves past the highest restored value, so new rows get new ids. */
async function moveSequences(session: SqlSession): Promise<void> {
  const { rows } = await session.query(
    `select c.relname as table, a.attname as column from pg_depend d
     join pg_class s on s.oid = d.objid and s.relkind = 'S'
     join pg_class c on c.oid = d.refobjid join pg_namespace n on n.oid = c.relnamespace
     join pg_attribute a on a.attrelid = c.oid and a.attnum = d.refobjsubid
     where n.nspname = 'public' and d.deptype in ('a', 'i')`,
  );
  for (const row of rows) {
    const table = String(row.table);
    const column = String(row.column);
    await session.query(
      `select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${quoteIdent(column)}) from ${quoteIdent(table)}), 0) + 1, false)`,
      [quoteIdent(table), column],
    );
  }
}
