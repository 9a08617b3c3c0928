import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { appliedMigrations, quoteIdent, storedColumns, tablesInDependencyOrder, type SqlSession } from './catalog.js';
import { knownMigrations, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type SnapshotEnd, type SnapshotHeader, type TableHeader } from './format.js';

/** Rows fetched per round trip from the cursor: big enough to stream fast, small enough to hold in memory. */
const FETCH_ROWS = 5_000;

export interface SnapshotSummary {
  readonly tables: number;
  readonly rows: number;
}

/**
 * Writes every table of the session's database to `out` (see format.ts). The session must be inside a transaction
 * (a cursor lives in one); on PostgreSQL a repeatable-read one (see snapshotOf in ./session.ts), so the snapshot is
 * of one moment while the service goes on writing. Rows are read through a cursor, so memory stays flat whatever
 * the size.
 */
export async function writeSnapshot(session: SqlSession, source: SnapshotHeader['source'], out: Writable): Promise<SnapshotSummary> {
  const write = async (value: unknown) => {
    if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, 'drain');
  };
  const writeRaw = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const migrations = await appliedMigrations(session);
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    schema: { migrations, last: knownMigrations()[migrations - 1] ?? null },
    taken_at: new Date().toISOString(),
    source,
  };
  await write(header);
  const tables = await tablesInDependencyOrder(session);
  let total = 0;
  for (const table of tables) {
    const columns = await storedColumns(session, table);
    const { rows } = await session.query(`select count(*)::bigint as n from ${quoteIdent(table)}`);
    const count = Number(rows[0]?.n ?? 0);
    await write({ table, columns, rows: count } satisfies TableHeader);
    if (count === 0) continue;
    const list = columns.map(quoteIdent).join(', ');
    await session.query(
      `declare snapshot_rows no scroll cursor for select row_to_json(t)::text as j from (select ${list} from ${quoteIdent(table)}) t`,
    );
    for (;;) {
      const batch = await session.query(`fetch ${FETCH_ROWS} from snapshot_rows`);
      if (batch.rows.length === 0) break;
      await writeRaw(batch.rows.map((row) => `${String(row.j)}\n`).join(''));
      total += batch.rows.length;
    }
    await session.query('close snapshot_rows');
  }
  await write({ end: true, tables: tables.length, rows: total } satisfies SnapshotEnd);
  return { tables: tables.length, rows: total };
}
