import type { AppContext } from '../context.js';
import { NotFoundError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import * as repo from './bounce.repository.js';
import { MAX_RAW_CHARACTERS, MAX_TOTALS, type BounceDetail } from './bounce.schemas.js';

/* Bounces are written by bounce processing; the API reads and deletes them. */

const BOUNCE_NOT_FOUND = 'Bounce not found.';

export async function listBounces(ctx: AppContext, by: repo.BounceFilter, afterId: number, limit: number) {
  const { items, total } = await repo.listBounces(ctx.db, { ...by, status: by.status?.trim() }, afterId, limit);
  return toPage(items, total, limit, (b) => b.id);
}

export async function getBounce(ctx: AppContext, id: number): Promise<BounceDetail> {
  const raw = await repo.findBounce(ctx.db, id, MAX_RAW_CHARACTERS);
  if (!raw) throw new NotFoundError(BOUNCE_NOT_FOUND);
  return raw;
}

export async function deleteBounce(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteBounce(ctx.db, id))) throw new NotFoundError(BOUNCE_NOT_FOUND);
}

/** Campaign totals cover the caller's campaigns and owner-less ones, like the lists an administrator sees. */
export const totalsByCampaign = (ctx: AppContext, callerId: number) => repo.totalsByCampaign(ctx.db, callerId, MAX_TOTALS);

export const totalsBySubscriber = (ctx: AppContext) => repo.totalsBySubscriber(ctx.db, MAX_TOTALS);
