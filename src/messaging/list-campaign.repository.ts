import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { campaigns, listCampaigns, lists } from '../db/schema/index.js';
import type { ListRow } from '../subscription/index.js';
import type { CampaignRow } from './campaign.repository.js';

// The links between campaigns and the lists they go to (`list_campaigns`).

export type ListCampaignRow = typeof listCampaigns.$inferSelect;

const pair = (campaignId: number, listId: number) => and(eq(listCampaigns.campaignId, campaignId), eq(listCampaigns.listId, listId));

/** The lists a campaign is linked to, by list id. */
export async function listsOfCampaign(db: Executor, campaignId: number): Promise<ListRow[]> {
  const rows = await db
    .select({ list: lists })
    .from(listCampaigns)
    .innerJoin(lists, eq(lists.id, listCampaigns.listId))
    .where(eq(listCampaigns.campaignId, campaignId))
    .orderBy(asc(lists.id));
  return rows.map((r) => r.list);
}

/** The campaigns linked to a list, by campaign id. */
export async function campaignsOfList(db: Executor, listId: number): Promise<CampaignRow[]> {
  const rows = await db
    .select({ campaign: campaigns })
    .from(listCampaigns)
    .innerJoin(campaigns, eq(campaigns.id, listCampaigns.campaignId))
    .where(eq(listCampaigns.listId, listId))
    .orderBy(asc(campaigns.id));
  return rows.map((r) => r.campaign);
}

/** Links a campaign to a list, or finds the link that already exists. */
export async function linkCampaign(db: Executor, campaignId: number, listId: number): Promise<ListCampaignRow> {
  await db.insert(listCampaigns).values({ campaignId, listId }).onConflictDoNothing();
  const [row] = await db.select().from(listCampaigns).where(pair(campaignId, listId));
  return row!;
}

/** Whether a link was there to remove. */
export async function unlinkCampaign(db: Executor, campaignId: number, listId: number): Promise<boolean> {
  const rows = await db.delete(listCampaigns).where(pair(campaignId, listId)).returning({ id: listCampaigns.id });
  return rows.length > 0;
}

export async function unlinkCampaignFromAll(db: Executor, campaignId: number): Promise<void> {
  await db.delete(listCampaigns).where(eq(listCampaigns.campaignId, campaignId));
}

export async function isCampaignLinked(db: Executor, campaignId: number, listId: number): Promise<boolean> {
  const [row] = await db.select({ id: listCampaigns.id }).from(listCampaigns).where(pair(campaignId, listId));
  return row !== undefined;
}
