import type { Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { MAX_LIMIT } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import * as repo from './local-parts.repository.js';
import type { TopLocalParts } from './statistics.schemas.js';
import { percent } from './statistics.service.js';

/**
 * A snapshot that subscribers' writes made out of date is refreshed by the next request, unless its refresh took at
 * least SLOW_MS: then not before it is ten refreshes old, nor later than MAX_AGE_MINUTES (repository's snapshotState).
 */
const SLOW_MS = 100;
const MAX_AGE_MINUTES = 10;
/** How long a request waits for the refresh it started before it answers with the snapshot there is. */
const WAIT_MS = 500;

/**
 * The most common local parts as of the snapshot (issue 24). A missing or out-of-date snapshot starts one refresh
 * (claimed in the database: concurrent requests and processes start none); the request waits for it up to WAIT_MS,
 * so a small installation always reads exact figures, and at a million addresses (seconds of grouping) it answers
 * at once with the figures of `computed_at` and `stale: true` while the refresh runs on.
 */
export async function topLocalParts(ctx: AppContext, limit: number): Promise<Static<typeof TopLocalParts>> {
  let state = await repo.snapshotState(ctx.db, SLOW_MS, MAX_AGE_MINUTES);
  if (!state.fresh && !state.refreshing && (await repo.claimRefresh(ctx.db))) {
    const refreshed = refreshInBackground(ctx);
    const timer = new Promise<void>((resolve) => setTimeout(resolve, WAIT_MS).unref());
    await Promise.race([refreshed, timer]);
    state = await repo.snapshotState(ctx.db, SLOW_MS, MAX_AGE_MINUTES);
  }
  const rows = state.computedAt ? await repo.snapshotFigures(ctx.db, limit) : [];
  const local_parts = rows.map((r) => ({ local_part: r.localPart, count: r.count, percentage: percent(r.count, state.total) }));
  return {
    local_parts,
    total: local_parts.length,
    computed_at: state.computedAt ? toAtom(state.computedAt) : null,
    stale: !state.fresh || state.refreshing,
  };
}

async function refreshInBackground(ctx: AppContext): Promise<void> {
  const started = Date.now();
  try {
    await repo.refreshSnapshot(ctx.db, MAX_LIMIT);
    ctx.log.info({ ms: Date.now() - started }, 'top local parts refreshed');
  } catch (err) {
    ctx.log.error({ err }, 'top local parts: refresh failed');
    await repo.releaseRefresh(ctx.db).catch(() => undefined);
  }
}
