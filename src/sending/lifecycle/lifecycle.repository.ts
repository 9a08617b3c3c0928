import { and, count, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { campaigns, deliveries, listCampaigns } from '../../db/schema/index.js';
import type { CampaignStatus } from '../../messaging/index.js';

/*
 * The campaign row as the lifecycle sees it, and the only writes of its `status`. Every change starts with
 * lockCampaign, whose read is the row the change is judged on: one lock and one read per change.
 */

export type LockedCampaign = typeof campaigns.$inferSelect;

/**
 * The campaign, its row locked for the rest of the transaction (serialises the sender's workers, resend and an
 * administrator's status change), or null when there is none.
 */
export async function lockCampaign(tx: Executor, campaignId: number): Promise<LockedCampaign | null> {
  const [row] = await tx.select().from(campaigns).where(eq(campaigns.id, campaignId)).for('update');
  return row ?? null;
}

export async function hasLists(tx: Executor, campaignId: number): Promise<boolean> {
  const [link] = await tx.select({ id: listCampaigns.id }).from(listCampaigns).where(eq(listCampaigns.campaignId, campaignId)).limit(1);
  return link !== undefined;
}

/** Writes the new status with the times it stamps: `send_start` the first time it sends, `sent` when it is sent. */
export async function writeStatus(tx: Executor, campaign: LockedCampaign, to: CampaignStatus, now: Date): Promise<void> {
  await tx
    .update(campaigns)
    .set({
      status: to,
      updatedAt: now,
      ...(to === 'inprocess' && !campaign.sendStart ? { sendStart: now } : {}),
      ...(to === 'sent' ? { sentAt: now } : {}),
    })
    .where(eq(campaigns.id, campaign.id));
}

/** `sent` → `submitted`, answering whether the campaign was sent. */
export async function writeReopened(tx: Executor, campaignId: number, now: Date): Promise<boolean> {
  const rows = await tx
    .update(campaigns)
    .set({ status: 'submitted', updatedAt: now })
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, 'sent')))
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

/** The campaign's delivery records by status (`sent`, `failed`, `skipped` …): a finished campaign's totals. */
export async function deliveryTotals(tx: Executor, campaignId: number): Promise<Record<string, number>> {
  const rows = await tx
    .select({ status: deliveries.status, n: count() })
    .from(deliveries)
    .where(eq(deliveries.campaignId, campaignId))
    .groupBy(deliveries.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}
