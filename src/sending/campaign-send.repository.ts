import { and, asc, count, eq, gt, inArray, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { deliveries, lists, subscribers } from '../db/schema/index.js';
import type { DeliveryStatus } from './campaign-send.schemas.js';

/** The ids among these that are lists. */
export async function existingListIds(db: Executor, ids: readonly number[]): Promise<Set<number>> {
  const rows = await db
    .select({ id: lists.id })
    .from(lists)
    .where(inArray(lists.id, [...ids]));
  return new Set(rows.map((r) => r.id));
}

/** One keyset page of a campaign's records (the (campaign_id, status, id) index), with the subscriber's address. */
export async function listDeliveries(db: Executor, campaignId: number, status: DeliveryStatus | undefined, afterId: number, limit: number) {
  const filter: SQL | undefined = and(eq(deliveries.campaignId, campaignId), status ? eq(deliveries.status, status) : undefined);
  const rows = await db
    .select({
      id: deliveries.id,
      subscriberId: deliveries.subscriberId,
      email: subscribers.email,
      status: deliveries.status,
      attempts: deliveries.attempts,
      lastResponse: deliveries.lastResponse,
      queuedAt: deliveries.queuedAt,
      sentAt: deliveries.sentAt,
      updatedAt: deliveries.updatedAt,
      nextAttemptAt: deliveries.nextAttemptAt,
    })
    .from(deliveries)
    .innerJoin(subscribers, eq(subscribers.id, deliveries.subscriberId))
    .where(and(filter, gt(deliveries.id, afterId)))
    .orderBy(asc(deliveries.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(deliveries).where(filter);
  return { rows, total: total?.n ?? 0 };
}
