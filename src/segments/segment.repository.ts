import { and, asc, count, eq, gt, ne, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { bool, int, text, timestamp } from '../db/row.js';
import { attributeDefinitions, attributeOptions, lists, segments } from '../db/schema/index.js';
import { ON_SOME_LIST, SENDABLE_FLAGS } from '../subscription/index.js';
import type { SegmentVocabulary } from './segment.definition.js';

/*
 * Segments' SQL: the saved rows, what a definition is checked against, and the two reads of a compiled predicate
 * (a count, a keyset page). The predicate comes from segment.compile.ts with every value bound.
 */

export type SegmentRow = typeof segments.$inferSelect;

export async function vocabulary(db: Executor): Promise<SegmentVocabulary> {
  const definitions = await db
    .select({ id: attributeDefinitions.id, name: attributeDefinitions.name, type: attributeDefinitions.type })
    .from(attributeDefinitions);
  const options = await db
    .select({ id: attributeOptions.id, definitionId: attributeOptions.definitionId, name: attributeOptions.name })
    .from(attributeOptions)
    .orderBy(asc(attributeOptions.listOrder), asc(attributeOptions.id));
  const listRows = await db.select({ id: lists.id }).from(lists);
  const attributes = new Map(
    definitions.map((d) => [d.id, { name: d.name, type: d.type ?? 'textline', options: [] as { id: number; name: string }[] }]),
  );
  for (const o of options) attributes.get(o.definitionId)?.options.push({ id: o.id, name: o.name });
  return { attributes, listIds: new Set(listRows.map((l) => l.id)) };
}

export async function insert(
  db: Executor,
  row: { name: string; description: string | null; definition: unknown; createdBy: number },
): Promise<SegmentRow> {
  const [stored] = await db.insert(segments).values(row).returning();
  return stored!;
}

export async function update(
  db: Executor,
  id: number,
  row: { name: string; description: string | null; definition: unknown },
): Promise<SegmentRow | undefined> {
  const [stored] = await db
    .update(segments)
    .set({ ...row, updatedAt: sql`now()` })
    .where(eq(segments.id, id))
    .returning();
  return stored;
}

export async function remove(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(segments).where(eq(segments.id, id)).returning({ id: segments.id });
  return rows.length > 0;
}

export async function find(db: Executor, id: number): Promise<SegmentRow | undefined> {
  const [row] = await db.select().from(segments).where(eq(segments.id, id));
  return row;
}

export async function nameTaken(db: Executor, name: string, exceptId = 0): Promise<boolean> {
  const rows = await db
    .select({ id: segments.id })
    .from(segments)
    .where(and(sql`lower(${segments.name}) = lower(${name})`, ne(segments.id, exceptId)))
    .limit(1);
  return rows.length > 0;
}

export async function page(db: Executor, afterId: number, limit: number): Promise<{ rows: SegmentRow[]; total: number }> {
  const rows = await db.select().from(segments).where(gt(segments.id, afterId)).orderBy(asc(segments.id)).limit(limit);
  const [all] = await db.select({ total: count() }).from(segments);
  return { rows, total: all?.total ?? 0 };
}

/**
 * How many rows of `from` (subscribers, or a child range of them: segmentCountSource) the predicate matches, and how
 * many of those have the flags a send needs and are on some list (SENDABLE_FLAGS, ON_SOME_LIST), in one pass: the
 * flags and the membership are probed for the matches only, the membership not at all when the definition implies
 * it (`onSomeList`). As a second statement that evaluated the whole
 * definition again over the subscribers, it cost as much as the count itself, or twice as much when the matches can
 * be mailed (a million subscribers: 167 ms for the matches, then 351 ms; together 306–348 ms). What the blacklist
 * table takes off is the caller's (subscription's countBlacklistedWithFlags).
 *
 * Without parallel workers: a parallel plan of the bench count took 1.4 times the CPU of the serial one (leader and
 * two workers 238 ms against 166 ms at a million), which buys a lone count some latency on idle cores, but counts come
 * several at a time (the console's builder counts as the definition changes, for each administrator), and then the
 * workers only compete with the other counts for the same cores (docs/api.md "Segments"). `set local` ends with
 * the transaction, so the pool's connections keep the server's setting for everything else.
 */
export async function countMatching(
  db: Executor,
  source: { from: SQL; predicate: SQL; onSomeList: boolean },
  timeoutMs: number,
): Promise<{ matches: number; withFlagsOnSomeList: number }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local max_parallel_workers_per_gather = 0`);
    await boundTime(tx, timeoutMs);
    // Raw: the compiled predicate is written over the alias `s`, and so are the subscription rule's fragments.
    const mailable = source.onSomeList ? SENDABLE_FLAGS : sql`${SENDABLE_FLAGS} and ${ON_SOME_LIST}`;
    const [n] = await queryRows(
      tx,
      sql`select count(*)::int as matches,
                 count(*) filter (where exists (select 1 from subscribers s where s.id = x.id and ${mailable}))::int as flagged
          from (select s.id from ${source.from} where ${source.predicate}) x`,
      (row) => ({ matches: int(row, 'matches'), withFlagsOnSomeList: int(row, 'flagged') }),
    );
    return n ?? { matches: 0, withFlagsOnSomeList: 0 };
  });
}

export interface MatchingRow {
  readonly id: number;
  readonly email: string;
  readonly confirmed: boolean;
  readonly blacklisted: boolean;
  readonly createdAt: Date;
}

/**
 * The next `limit` matching subscribers after `afterId`; `predicate` is compiled with the same `afterId`
 * (segment.compile.ts), so every condition's index is read from there on, in subscriber order, and the planner merges
 * or probes them and stops at the limit (0.2 ms for a page at a million where it used to start each merge at the first
 * subscriber; docs/api.md "Segments").
 */
export async function matchingPage(db: Executor, predicate: SQL, afterId: number, limit: number, timeoutMs: number): Promise<MatchingRow[]> {
  return db.transaction(async (tx) => {
    await boundTime(tx, timeoutMs);
    return queryRows(
      tx,
      sql`select s.id, s.email, s.confirmed, s.blacklisted, s.created_at from subscribers s
        where s.id > ${afterId} and ${predicate}
        order by s.id limit ${limit}`,
      (row): MatchingRow => ({
        id: int(row, 'id'),
        email: text(row, 'email'),
        confirmed: bool(row, 'confirmed'),
        blacklisted: bool(row, 'blacklisted'),
        createdAt: timestamp(row, 'created_at'),
      }),
    );
  });
}

/**
 * SEGMENT_TIMEOUT_MS for the rest of the transaction (PostgreSQL cancels the statement with SQLSTATE 57014; `set local`
 * ends with the transaction). A value cannot be a parameter of SET, hence set_config. The embedded database accepts it
 * but never interrupts a statement (its one thread has no timer): segment.service.ts bounds the work there instead.
 */
async function boundTime(tx: Executor, timeoutMs: number): Promise<void> {
  await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`);
}

/** The highest subscriber id: at most the subscribers a count or a page can visit, read from the key's end. */
export async function highestSubscriberId(db: Executor): Promise<number> {
  const [row] = await queryRows(db, sql`select coalesce(max(id), 0)::int as id from subscribers`, (r) => int(r, 'id'));
  return row ?? 0;
}
