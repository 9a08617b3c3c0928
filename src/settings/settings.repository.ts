import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, intOrNull, text, timestamp, type Row } from '../db/row.js';

export interface StoredRow {
  readonly key: string;
  readonly value: unknown;
  readonly updatedAt: Date;
  readonly updatedBy: number | null;
}

/** The highest version written (0 when nothing ever was): one index-only look every poll. */
export async function latestVersion(db: Executor): Promise<number> {
  const [version] = await queryRows(db, sql`select coalesce(max(version), 0)::int as v from settings`, (r) => int(r, 'v'));
  return version ?? 0;
}

/** Every stored key with the version read in the same statement, so no change can fall between the two. */
export async function readAll(db: Executor): Promise<{ version: number; rows: StoredRow[] }> {
  const rows = await queryRows(
    db,
    sql`select key, value::text as value, updated_at, updated_by, (select coalesce(max(version), 0)::int from settings) as v from settings`,
    (r: Row) => ({
      key: text(r, 'key'),
      // As text and parsed here: a JSON string must not be mistaken for text a driver left unparsed.
      value: r['value'] === null ? null : (JSON.parse(text(r, 'value')) as unknown),
      updatedAt: timestamp(r, 'updated_at'),
      updatedBy: intOrNull(r, 'updated_by'),
      version: int(r, 'v'),
    }),
  );
  return { version: rows[0]?.version ?? 0, rows };
}

/** Writes the given keys (null: back to the default), each taking a new version, in one statement. */
export async function writeValues(db: Executor, values: Readonly<Record<string, unknown>>, adminId: number): Promise<void> {
  const keys = Object.keys(values);
  if (keys.length === 0) return;
  const json = JSON.stringify(values);
  await db.execute(
    sql`insert into settings (key, value, updated_by)
      select e.key, nullif(e.value, 'null'::jsonb), ${adminId} from jsonb_each(${json}::jsonb) as e
      on conflict (key) do update
        set value = excluded.value, updated_by = excluded.updated_by, updated_at = now(),
            version = nextval(pg_get_serial_sequence('settings', 'version'))`,
  );
}
