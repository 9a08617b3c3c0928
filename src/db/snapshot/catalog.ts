/*
 * What a snapshot reads of the database's own catalogue: its tables in foreign-key order, their columns, and how
 * far its migrations got. Plain SQL over one session (a pg client or a PGlite instance), no Drizzle: the snapshot
 * copies whatever tables the schema has, including ones added after this file was written.
 */

/** One database session: a node-postgres client or a PGlite instance, both answer `query(text, params)`. */
export interface SqlSession {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Double-quotes an identifier read from the catalogue (never from outside). */
export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** The public schema's tables, each after every table it references, then by name. */
export async function tablesInDependencyOrder(session: SqlSession): Promise<string[]> {
  const { rows: tableRows } = await session.query(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`,
  );
  const { rows: edges } = await session.query(
    `select child.relname as child, parent.relname as parent
     from pg_constraint k
     join pg_class child on child.oid = k.conrelid join pg_namespace n on n.oid = child.relnamespace
     join pg_class parent on parent.oid = k.confrelid
     where k.contype = 'f' and n.nspname = 'public' and k.conrelid <> k.confrelid`,
  );
  const names = tableRows.map((row) => String(row.name));
  const parents = new Map<string, Set<string>>(names.map((name) => [name, new Set()]));
  for (const edge of edges) parents.get(String(edge.child))?.add(String(edge.parent));
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < names.length) {
    const ready = names.filter((name) => !placed.has(name) && [...parents.get(name)!].every((parent) => placed.has(parent)));
    // A cycle of foreign keys (none today) would leave tables unplaced: place them by name rather than loop forever.
    const next = ready.length > 0 ? ready : names.filter((name) => !placed.has(name)).slice(0, 1);
    for (const name of next) {
      placed.add(name);
      ordered.push(name);
    }
  }
  return ordered;
}

/** The table's stored columns in order (generated columns are computed again on insert, so they are left out). */
export async function storedColumns(session: SqlSession, table: string): Promise<string[]> {
  const { rows } = await session.query(
    `select a.attname as name from pg_attribute a join pg_class c on c.oid = a.attrelid
     join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relname = $1 and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
     order by a.attnum`,
    [table],
  );
  return rows.map((row) => String(row.name));
}

/** How many migrations drizzle recorded as applied (0 for a database never migrated). */
export async function appliedMigrations(session: SqlSession): Promise<number> {
  const { rows } = await session.query(`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!rows[0]?.present) return 0;
  const { rows: counted } = await session.query(`select count(*)::int as n from drizzle.__drizzle_migrations`);
  return Number(counted[0]?.n ?? 0);
}
