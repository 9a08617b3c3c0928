import { sql, type SQL } from 'drizzle-orm';
import { queryRows, sqlArray, sqlColumn, type Executor } from '../db/client.js';
import { int, num } from '../db/row.js';

/*
 * The e-mail substring search over subscribers (issue 24). Its trigram index is on subscriber_email_search, a copy of
 * the addresses that the background fold (email-search.fold.ts) brings up to date from the ids the subscriber
 * triggers record in subscriber_email_search_pending (routines/015_subscriber_email_search.sql), so that writing an
 * address no longer extracts its trigrams. A match is a subscriber whose address matches, found either in the
 * index or among the ids not yet folded; the candidates from the copy are checked against subscribers.email, so a
 * copy behind an address change never answers for it.
 */

/**
 * The text of the match, cut where the pattern goes (it is one parameter, used three times). The ids not folded yet
 * come from a function (routine 015) the planner prices as the few rows they nearly always are.
 */
const MATCH_AROUND_PATTERN = [
  '(s.email ilike ',
  ' and s.id in (select e.subscriber_id from subscriber_email_search e where e.email ilike ',
  ' union all select u.id from subscriber_email_search_unfolded(',
  ') u(id)))',
];

/**
 * pg_trgm finds no trigram in fewer than three characters, and the index would then be read whole: a shorter
 * search reads subscribers directly, as it always did.
 */
const INDEXED_MIN_LENGTH = 3;

/**
 * `s.email ilike <pattern>` on subscribers `s`, through the trigram index when `indexed`; `param` is the pattern's
 * placeholder. The two texts differ: a prepared statement's name must tell them apart.
 */
export function emailMatchText(param: string, searchedText: string): { text: string; indexed: boolean } {
  const indexed = searchedText.length >= INDEXED_MIN_LENGTH;
  return { text: indexed ? MATCH_AROUND_PATTERN.join(param) : `s.email ilike ${param}`, indexed };
}

/** The same as a Drizzle fragment, the pattern bound as a parameter. */
export function emailMatchSql(pattern: string, searchedText: string): SQL {
  if (searchedText.length < INDEXED_MIN_LENGTH) return sql`s.email ilike ${pattern}`;
  return sql.join(
    MATCH_AROUND_PATTERN.map((part) => sql.raw(part)),
    sql`${pattern}`,
  );
}

export interface PendingRange {
  id: number;
  lo: number;
  hi: number;
}

/**
 * The oldest ranges still to fold that no other process is folding (locked until the transaction ends), at most
 * `limit` of them.
 */
export async function claimPending(tx: Executor, limit: number): Promise<PendingRange[]> {
  return queryRows(tx, sql`select id, lo, hi from subscriber_email_search_pending order by id limit ${limit} for update skip locked`, (row) => ({
    id: int(row, 'id'),
    lo: int(row, 'lo'),
    hi: int(row, 'hi'),
  }));
}

/**
 * Copies the current addresses of the subscribers with ids in the ranges into the copy (the ranges may overlap;
 * subscribers gone since have no row to copy, their copy went with them). Returns how many rows it wrote.
 */
export async function copyAddresses(tx: Executor, ranges: readonly { lo: number; hi: number }[]): Promise<number> {
  const [written] = await queryRows(
    tx,
    sql`with copied as (
          insert into subscriber_email_search as e (subscriber_id, email)
          select distinct s.id, s.email
          from unnest(${sqlColumn(ranges, 'int', (r) => r.lo)}, ${sqlColumn(ranges, 'int', (r) => r.hi)}) as r(lo, hi)
          join subscribers s on s.id between r.lo and r.hi
          order by s.id
          on conflict (subscriber_id) do update set email = excluded.email where e.email <> excluded.email
          returning 1)
        select count(*)::int as n from copied`,
    (row) => int(row, 'n'),
  );
  return written ?? 0;
}

/** How many ids are waiting to be folded (ranges may overlap: an upper bound). */
export async function pendingIds(db: Executor): Promise<number> {
  const [n] = await queryRows(db, sql`select coalesce(sum(hi - lo + 1), 0)::float8 as n from subscriber_email_search_pending`, (row) =>
    num(row, 'n'),
  );
  return n ?? 0;
}

/**
 * Moves the index's pending list (GIN's fastupdate: inserts appended, merged later in bulk) into the index proper.
 * Until then every search reads the whole list, up to 4 MB: 15 ms and more after a large fold, until a vacuum.
 */
export async function mergeIndexPendingList(db: Executor): Promise<void> {
  await db.execute(sql`select gin_clean_pending_list('subscriber_email_search_trgm_idx'::regclass)`);
}

/** Removes folded ranges, and narrows a range folded in part to what is left of it. */
export async function settleRanges(tx: Executor, done: readonly number[], narrowed: PendingRange | null): Promise<void> {
  if (done.length > 0) await tx.execute(sql`delete from subscriber_email_search_pending where id = any(${sqlArray(done, 'bigint')})`);
  if (narrowed) await tx.execute(sql`update subscriber_email_search_pending set lo = ${narrowed.lo} where id = ${narrowed.id}`);
}
