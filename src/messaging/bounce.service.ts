import type { AppContext } from '../context.js';
import { NotFoundError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import * as repo from './bounce.repository.js';
import { MAX_TOTALS } from './bounce.schemas.js';

/* Bounces are written by bounce processing; the API reads and deletes them. */

export async function listBounces(ctx: AppContext, by: repo.BounceFilter, afterId: number, limit: number) {
  const { items, total } = await repo.listBounces(ctx.db, { ...by, status: by.status?.trim() }, afterId, limit);
  return toPage(items, total, limit, (b) => b.id);
}

export async function deleteBounce(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteBounce(ctx.db, id))) throw new NotFoundError('Bounce not found.');
}

/** Campaign totals cover the caller's campaigns and owner-less ones, like the lists an administrator sees. */
export const totalsByCampaign = (ctx: AppContext, callerId: number) => repo.totalsByCampaign(ctx.db, callerId, MAX_TOTALS);

export const totalsBySubscriber = (ctx: AppContext) => repo.totalsBySubscriber(ctx.db, MAX_TOTALS);
