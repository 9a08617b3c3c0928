import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { bool, int, num, text, timestamp, timestampOrNull } from '../db/row.js';

/*
 * The top local parts as a snapshot (issue 24): the figures of the last refresh in subscriber_local_part_counts and
 * their state in the `local_parts` row of analytics_snapshots. The subscriber triggers (routines/013) only set
 * `dirty`; grouping every address by its local part is the refresh's work, off the write path.
 */

const SNAPSHOT = 'local_parts';
/** How long a claimed refresh may run before another request may take it over (its process died). */
const REFRESH_TIMEOUT = '5 minutes';

export interface LocalPartSnapshotState {
  computedAt: Date | null;
  /** See snapshotState. */
  fresh: boolean;
  /** A refresh is running (claimed, within REFRESH_TIMEOUT): the figures are being recomputed. */
  refreshing: boolean;
  /** Addresses with an `@` at `computedAt`: the percentages' base. */
  total: number;
}

/**
 * Fresh: computed, and either nothing changed since its refresh began, or it changed but the refresh is slow (at
 * least `slowMs`) and the snapshot younger than ten refreshes (at most `maxAgeMinutes`): at a million addresses the
 * grouping takes seconds and must not run on every request while an import writes; a small installation refreshes
 * on the next request after any change.
 */
export async function snapshotState(db: Executor, slowMs: number, maxAgeMinutes: number): Promise<LocalPartSnapshotState> {
  const [state] = await queryRows(
    db,
    sql`select computed_at, total::float8 as total,
               computed_at is not null and (not dirty or (refresh_ms >= ${slowMs}::int
                 and computed_at > now() - least(make_interval(secs => refresh_ms * 10 / 1000.0), make_interval(mins => ${maxAgeMinutes}::int))))
                 as fresh,
               coalesce(refreshing_since > now() - ${REFRESH_TIMEOUT}::interval, false) as refreshing
        from analytics_snapshots where name = ${SNAPSHOT}`,
    (row) => ({
      computedAt: timestampOrNull(row, 'computed_at'),
      fresh: bool(row, 'fresh'),
      refreshing: bool(row, 'refreshing'),
      total: num(row, 'total'),
    }),
  );
  return state ?? { computedAt: null, fresh: false, refreshing: false, total: 0 };
}

export async function snapshotFigures(db: Executor, limit: number): Promise<{ localPart: string; count: number }[]> {
  return queryRows(
    db,
    // The top index's order (drizzle writes DESC NULLS LAST; the column is never null).
    sql`select local_part, subscribers::int as count from subscriber_local_part_counts
        order by subscribers desc nulls last, local_part limit ${limit}`,
    (row) => ({ localPart: text(row, 'local_part'), count: int(row, 'count') }),
  );
}

/**
 * Claims the refresh: true for one caller only, among requests and processes, until it ends or has run longer than
 * REFRESH_TIMEOUT. Claiming clears `dirty`, so a write committed while the refresh runs marks it again and the next
 * request refreshes once more: no change is missed for longer than one refresh.
 */
export async function claimRefresh(db: Executor): Promise<boolean> {
  const claimed = await queryRows(
    db,
    sql`insert into analytics_snapshots as s (name, refreshing_since, dirty) values (${SNAPSHOT}, now(), false)
        on conflict (name) do update set refreshing_since = now(), dirty = false
          where s.refreshing_since is null or s.refreshing_since < now() - ${REFRESH_TIMEOUT}::interval
        returning s.refreshing_since`,
    (row) => timestamp(row, 'refreshing_since'),
  );
  return claimed.length === 1;
}

/**
 * Groups the addresses by local part (lower-cased, before the first `@`; addresses without one are left out) and
 * keeps the `keep` largest, ties by name, replacing the previous snapshot in one transaction: readers see the old
 * figures until it commits.
 */
export async function refreshSnapshot(db: Executor, keep: number): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`delete from subscriber_local_part_counts`);
    // One statement, so the figures and their base are read from one snapshot of the subscribers.
    await tx.execute(sql`with grouped as (
        select lower(split_part(email, '@', 1)) as local_part, count(*) as n from subscribers
        where strpos(email, '@') > 0 group by 1
      ), kept as (
        insert into subscriber_local_part_counts (local_part, subscribers)
        select local_part, n from grouped order by n desc, local_part limit ${keep}
      )
      update analytics_snapshots set computed_at = now(), refreshing_since = null,
        refresh_ms = (extract(epoch from clock_timestamp() - refreshing_since) * 1000)::int,
        total = (select coalesce(sum(n), 0) from grouped)
      where name = ${SNAPSHOT}`);
  });
}

/** Ends a refresh that failed: the next request may try again at once, and must (nothing was recomputed). */
export async function releaseRefresh(db: Executor): Promise<void> {
  await db.execute(sql`update analytics_snapshots set refreshing_since = null, dirty = true where name = ${SNAPSHOT}`);
}
