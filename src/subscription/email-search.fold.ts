import type { Stoppable } from '../process.js';
import type { AppContext } from '../context.js';
import type { AppDb } from '../db/client.js';
import { claimPending, copyAddresses, mergeIndexPendingList, pendingIds, settleRanges, type PendingRange } from './email-search.repository.js';
import { emailSearchBehind } from '../shared/metrics.js';

/*
 * The background fold of the e-mail search's copy (email-search.repository.ts): every process that serves the API
 * runs one; they share the pending ranges through row locks (skip locked), so two never fold the same range.
 */

/**
 * Ids per fold transaction: on PostgreSQL 60 ms of trigram extraction (300,000 ids in 3.8 s); the embedded database
 * has one connection, which the API's requests wait for meanwhile, and runs it several times slower.
 */
const FOLD_IDS = { postgres: 5_000, pglite: 1_000 } as const;
/** Ranges looked at per fold (an import leaves one per 1,000-row statement). */
const CLAIM_RANGES = 100;
/** How long the fold waits when there was nothing to fold, or after a failure. */
const IDLE_MS = 2_000;
/**
 * The pause between two folds of a long backlog, so that other work on the database goes first: at least this, and
 * on the embedded database twice as long as the fold took (the fold then has a third of its one connection; at its
 * full use, requests after an import were answered 503 by the load shedder, PGLITE_MAX_WAIT_MS).
 */
const BETWEEN_FOLDS_MS = 20;

/**
 * One fold: up to FOLD_IDS ids of the oldest pending ranges, in one transaction. Returns how many ids it covered
 * (0: nothing was pending, or another process holds all of it).
 */
export async function foldOnce(db: AppDb, foldIds: number = FOLD_IDS[db.kind]): Promise<number> {
  return db.transaction(async (tx) => {
    const ranges = await claimPending(tx, CLAIM_RANGES);
    const take: { lo: number; hi: number }[] = [];
    const done: number[] = [];
    let narrowed: PendingRange | null = null;
    let covered = 0;
    for (const range of ranges) {
      const room = foldIds - covered;
      if (room <= 0) break;
      const span = range.hi - range.lo + 1;
      if (span <= room) {
        take.push(range);
        done.push(range.id);
        covered += span;
      } else {
        // The rest of a large range (the ids already there when the copy was made) waits for the next fold.
        take.push({ lo: range.lo, hi: range.lo + room - 1 });
        narrowed = { ...range, lo: range.lo + room };
        covered += room;
      }
    }
    if (take.length === 0) return 0;
    await copyAddresses(tx, take);
    await settleRanges(tx, done, narrowed);
    return covered;
  });
}

/** Folds until nothing is pending, then merges the index's pending list (tests). */
export async function foldAll(db: AppDb): Promise<number> {
  let total = 0;
  for (let covered = await foldOnce(db); covered > 0; covered = await foldOnce(db)) total += covered;
  await mergeIndexPendingList(db);
  return total;
}

/** Sets mailroom_email_search_pending_ids; called at each scrape of GET /metrics. */
export async function collectEmailSearchMetrics(ctx: AppContext): Promise<void> {
  emailSearchBehind.set(await pendingIds(ctx.db));
}

/** Starts the fold loop of this process; `stop()` lets a fold in progress finish. */
export function startEmailSearchFold(ctx: AppContext): Stoppable {
  let stopping = false;
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(), ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function loop(): Promise<void> {
    // Ids folded since the index's pending list was last merged.
    let unmerged = 0;
    while (!stopping) {
      let covered = 0;
      const started = performance.now();
      try {
        covered = await foldOnce(ctx.db);
        unmerged += covered;
        if (covered === 0 && unmerged > 0) {
          // The backlog is drained: the searches' index is made whole in one bulk merge (tens of milliseconds).
          await mergeIndexPendingList(ctx.db);
          unmerged = 0;
        }
      } catch (err) {
        ctx.log.error({ err }, 'e-mail search: fold failed; retrying');
      }
      if (stopping) break;
      const took = performance.now() - started;
      await pause(covered === 0 ? IDLE_MS : Math.max(BETWEEN_FOLDS_MS, ctx.db.kind === 'pglite' ? 2 * took : 0));
    }
  }

  const running = loop();
  return {
    async stop() {
      stopping = true;
      wake?.();
      await running;
    },
  };
}
