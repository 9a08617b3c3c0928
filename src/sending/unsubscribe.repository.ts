import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, text } from '../db/row.js';
import { campaignCounters, deliveries, listCampaigns, lists, subscriptions } from '../db/schema/index.js';

export interface ListName {
  readonly id: number;
  readonly name: string;
}

/** The campaign's lists (list_campaigns) the subscriber is still on, by name. */
export async function subscribedCampaignLists(db: Executor, campaignId: number, subscriberId: number): Promise<ListName[]> {
  return db
    .select({ id: lists.id, name: lists.name })
    .from(listCampaigns)
    .innerJoin(subscriptions, and(eq(subscriptions.listId, listCampaigns.listId), eq(subscriptions.subscriberId, subscriberId)))
    .innerJoin(lists, eq(lists.id, listCampaigns.listId))
    .where(eq(listCampaigns.campaignId, campaignId))
    .orderBy(asc(lists.name), asc(lists.id));
}

/** The lists among `ids` that still exist, by name. */
export async function listNames(db: Executor, ids: number[]): Promise<ListName[]> {
  if (ids.length === 0) return [];
  return db.select({ id: lists.id, name: lists.name }).from(lists).where(inArray(lists.id, ids)).orderBy(asc(lists.name), asc(lists.id));
}

/**
 * Removes the subscriber from the campaign's lists and answers the lists it was removed from. One statement: the
 * delete and the names it reports cannot disagree, whoever else writes meanwhile.
 */
export async function removeFromCampaignLists(db: Executor, campaignId: number, subscriberId: number): Promise<ListName[]> {
  return queryRows(
    db,
    sql`with removed as (
          delete from ${subscriptions}
          where ${subscriptions.subscriberId} = ${subscriberId}
            and ${subscriptions.listId} in (
              select ${listCampaigns.listId} from ${listCampaigns} where ${listCampaigns.campaignId} = ${campaignId})
          returning ${subscriptions.listId} as list_id)
        select l.id, l.name from removed r join ${lists} l on l.id = r.list_id
        order by l.name, l.id`,
    (row): ListName => ({ id: int(row, 'id'), name: text(row, 'name') }),
  );
}

/**
 * Marks the subscriber's still-queued delivery of the campaign `skipped` and moves it from `queued` to `skipped`
 * in the campaign's counters, in the caller's transaction. A delivery already being sent (claimed) is left to
 * finish: it cannot be called back. Answers how many deliveries were skipped (0 or 1).
 */
export async function skipQueuedDeliveries(db: Executor, campaignId: number, subscriberId: number, reason: string): Promise<number> {
  const skipped = await db
    .update(deliveries)
    .set({ status: 'skipped', lastResponse: reason, leaseUntil: null, workerId: null, updatedAt: new Date() })
    .where(and(eq(deliveries.campaignId, campaignId), eq(deliveries.subscriberId, subscriberId), eq(deliveries.status, 'queued')))
    .returning({ id: deliveries.id });
  if (skipped.length > 0) {
    await db
      .insert(campaignCounters)
      .values({ campaignId, skipped: skipped.length })
      .onConflictDoUpdate({
        target: campaignCounters.campaignId,
        set: {
          queued: sql`greatest(${campaignCounters.queued} - ${skipped.length}, 0)`,
          skipped: sql`${campaignCounters.skipped} + ${skipped.length}`,
          updatedAt: new Date(),
        },
      });
  }
  return skipped.length;
}
