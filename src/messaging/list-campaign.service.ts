import { and, asc, eq } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { campaigns, listCampaigns, lists } from '../db/schema/index.js';
import { NotFoundError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { toSubscriberList, requireList } from '../subscription/index.js';
import { toCampaignView, toCampaignViews } from './campaign.repository.js';
import { requireCampaign } from './campaign.service.js';

const NOT_LINKED = 'The campaign is not linked to this list.';

export async function listsOfCampaign(ctx: AppContext, campaignId: number) {
  await requireCampaign(ctx, campaignId);
  const rows = await ctx.db
    .select({ list: lists })
    .from(listCampaigns)
    .innerJoin(lists, eq(lists.id, listCampaigns.listId))
    .where(eq(listCampaigns.campaignId, campaignId))
    .orderBy(asc(lists.id));
  return rows.map((r) => toSubscriberList(r.list));
}

export async function campaignsOfList(ctx: AppContext, listId: number) {
  await requireList(ctx, listId);
  const rows = await ctx.db
    .select({ campaign: campaigns })
    .from(listCampaigns)
    .innerJoin(campaigns, eq(campaigns.id, listCampaigns.campaignId))
    .where(eq(listCampaigns.listId, listId))
    .orderBy(asc(campaigns.id));
  return toCampaignViews(
    ctx.db,
    rows.map((r) => r.campaign),
  );
}

/** Campaign first, then list (reference §5.14). Linking an existing pair answers that link (DECISIONS.md). */
export async function link(ctx: AppContext, campaignId: number, listId: number) {
  const campaign = await requireCampaign(ctx, campaignId);
  const list = await requireList(ctx, listId);
  await ctx.db.insert(listCampaigns).values({ campaignId, listId }).onConflictDoNothing();
  const [row] = await ctx.db
    .select()
    .from(listCampaigns)
    .where(and(eq(listCampaigns.campaignId, campaignId), eq(listCampaigns.listId, listId)));
  return {
    id: row!.id,
    message: await toCampaignView(ctx.db, campaign),
    subscriber_list: toSubscriberList(list),
    created_at: toAtom(row!.createdAt),
    updated_at: toAtom(row!.updatedAt),
  };
}

export async function unlink(ctx: AppContext, campaignId: number, listId: number) {
  await requireCampaign(ctx, campaignId);
  await requireList(ctx, listId);
  const rows = await ctx.db
    .delete(listCampaigns)
    .where(and(eq(listCampaigns.campaignId, campaignId), eq(listCampaigns.listId, listId)))
    .returning({ id: listCampaigns.id });
  if (rows.length === 0) throw new NotFoundError(NOT_LINKED);
}

export async function unlinkAll(ctx: AppContext, campaignId: number) {
  await requireCampaign(ctx, campaignId);
  await ctx.db.delete(listCampaigns).where(eq(listCampaigns.campaignId, campaignId));
}

export async function isLinked(ctx: AppContext, campaignId: number, listId: number): Promise<boolean> {
  await requireCampaign(ctx, campaignId);
  await requireList(ctx, listId);
  const [row] = await ctx.db
    .select({ id: listCampaigns.id })
    .from(listCampaigns)
    .where(and(eq(listCampaigns.campaignId, campaignId), eq(listCampaigns.listId, listId)));
  return row !== undefined;
}
