import type { AppContext } from '../context.js';
import { NotFoundError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { toSubscriberList, requireList } from '../subscription/index.js';
import { toCampaignView, toCampaignViews } from './campaign.repository.js';
import { requireCampaign } from './campaign.service.js';
import * as repo from './list-campaign.repository.js';

const NOT_LINKED = 'The campaign is not linked to this list.';

export async function listsOfCampaign(ctx: AppContext, campaignId: number) {
  await requireCampaign(ctx, campaignId);
  return (await repo.listsOfCampaign(ctx.db, campaignId)).map(toSubscriberList);
}

export async function campaignsOfList(ctx: AppContext, listId: number) {
  await requireList(ctx, listId);
  return toCampaignViews(ctx.db, await repo.campaignsOfList(ctx.db, listId));
}

/**
 * Campaign first, then list (reference §5.14). Linking an existing pair answers that link (../shared/api/DECISIONS.md
 * § Resources).
 */
export async function link(ctx: AppContext, campaignId: number, listId: number) {
  const campaign = await requireCampaign(ctx, campaignId);
  const list = await requireList(ctx, listId);
  const row = await repo.linkCampaign(ctx.db, campaignId, listId);
  return {
    id: row.id,
    message: await toCampaignView(ctx.db, campaign),
    subscriber_list: toSubscriberList(list),
    created_at: toAtom(row.createdAt),
    updated_at: toAtom(row.updatedAt),
  };
}

export async function unlink(ctx: AppContext, campaignId: number, listId: number) {
  await requireCampaign(ctx, campaignId);
  await requireList(ctx, listId);
  if (!(await repo.unlinkCampaign(ctx.db, campaignId, listId))) throw new NotFoundError(NOT_LINKED);
}

export async function unlinkAll(ctx: AppContext, campaignId: number) {
  await requireCampaign(ctx, campaignId);
  await repo.unlinkCampaignFromAll(ctx.db, campaignId);
}

export async function isLinked(ctx: AppContext, campaignId: number, listId: number): Promise<boolean> {
  await requireCampaign(ctx, campaignId);
  await requireList(ctx, listId);
  return repo.isCampaignLinked(ctx.db, campaignId, listId);
}
