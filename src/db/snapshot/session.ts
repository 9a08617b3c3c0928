import { sql, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../client.js';
import type { SqlSession } from './catalog.js';

/**
 * A Drizzle transaction as a SqlSession: `$1`-style placeholders become bound parameters, so the catalogue's
 * queries run the same on PGlite and PostgreSQL through the one handle the service uses.
 */
export function drizzleSession(tx: Pick<Executor, 'execute'>): SqlSession {
  return {
    async query(text, params = []) {
      const pieces = text.split(/\$(\d+)/);
      const parts: SQL[] = [];
      pieces.forEach((piece, i) => parts.push(i % 2 === 0 ? sql.raw(piece) : sql`${params[Number(piece) - 1]}`));
      const result = (await tx.execute(sql.join(parts, sql``))) as unknown as { rows: Record<string, unknown>[] };
      return { rows: result.rows };
    },
  };
}

/**
 * Runs `fn` in one transaction that sees a single moment of the database: repeatable read and read only, so a
 * snapshot taken while the service writes is consistent (PostgreSQL; PGlite serves one statement at a time).
 */
export function inSnapshotTransaction<T>(db: Db, fn: (session: SqlSession) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const session = drizzleSession(tx);
    await session.query('set transaction isolation level repeatable read, read only');
    return fn(session);
  });
}
