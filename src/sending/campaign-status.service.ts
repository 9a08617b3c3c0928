import type { AppContext } from '../context.js';
import { NotFoundError } from '../shared/errors.js';
import { CAMPAIGN_NOT_FOUND, getCampaign, type Campaign, type StatusBody } from '../messaging/index.js';
import { changeCampaignStatus } from './lifecycle/index.js';

/** One status change along the lifecycle's transitions, then the campaign as it now is. */
export async function setCampaignStatus(ctx: AppContext, id: number, body: StatusBody): Promise<Campaign> {
  await ctx.db.transaction(async (tx) => {
    if (!(await changeCampaignStatus(tx, id, body.status))) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  });
  return getCampaign(ctx, id);
}
