import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { text } from '../db/row.js';
import { blacklist, campaignCounters, deliveries, forwards, subscribers } from '../db/schema/index.js';

/** Namespace of the transaction-level advisory lock that serialises forwards of one campaign. */
const FORWARD_LOCK = 7390;

/**
 * Statuses that mean the friend has (or is being sent) this campaign: asked again, they are `already_sent`. `sent`
 * means queued for sending (mail/mail-queue.ts); `sending` is left by the versions that sent inside the request.
 */
const DELIVERED = ['sent', 'sending'];

/** Whether the campaign was sent to the subscriber (a `sent` delivery record). */
export async function received(db: Executor, campaignId: number, subscriberId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(and(eq(deliveries.campaignId, campaignId), eq(deliveries.subscriberId, subscriberId), eq(deliveries.status, 'sent')));
  return row !== undefined;
}

/**
 * Serialises, until the transaction ends, forwards of this campaign (so two forwarders cannot both send to one
 * friend) and forwards by this subscriber (so two requests cannot both slip under the rate limit).
 */
export async function lockForward(tx: Executor, campaignId: number, subscriberId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${FORWARD_LOCK}, ${campaignId})`);
  await tx.execute(sql`select 1 from ${subscribers} where ${subscribers.id} = ${subscriberId} for update`);
}

/** When the subscriber's forwards since `since` were made, oldest first; at most `cap` of them. */
export async function forwardTimes(db: Executor, subscriberId: number, since: Date, cap: number): Promise<Date[]> {
  const rows = await db
    .select({ createdAt: forwards.createdAt })
    .from(forwards)
    .where(and(eq(forwards.subscriberId, subscriberId), gt(forwards.createdAt, since)))
    .orderBy(asc(forwards.createdAt))
    .limit(cap);
  return rows.map((r) => r.createdAt);
}

/** The lower-cased addresses among `lowered` that were already forwarded this campaign, by anyone. */
export async function alreadyForwarded(db: Executor, campaignId: number, lowered: string[]): Promise<Set<string>> {
  if (lowered.length === 0) return new Set();
  const rows = await db
    .select({ email: sql<string>`lower(${forwards.email})` })
    .from(forwards)
    .where(and(eq(forwards.campaignId, campaignId), inArray(sql`lower(${forwards.email})`, lowered), inArray(forwards.status, DELIVERED)));
  return new Set(rows.map((r) => r.email));
}

/** The lower-cased addresses among `lowered` that must never be mailed: on the blacklist or a flagged subscriber's. */
export async function blacklistedAmong(db: Executor, lowered: string[]): Promise<Set<string>> {
  if (lowered.length === 0) return new Set();
  const emails = await queryRows(
    db,
    sql`select lower(${blacklist.email}) as email from ${blacklist} where ${inArray(sql`lower(${blacklist.email})`, lowered)}
        union
        select lower(${subscribers.email}) from ${subscribers}
        where ${inArray(sql`lower(${subscribers.email})`, lowered)} and ${subscribers.blacklisted}`,
    (row) => text(row, 'email'),
  );
  return new Set(emails);
}

export async function insertForwards(
  db: Executor,
  rows: { campaignId: number; subscriberId: number; email: string; status: string }[],
): Promise<{ id: number; email: string }[]> {
  if (rows.length === 0) return [];
  return db.insert(forwards).values(rows).returning({ id: forwards.id, email: forwards.email });
}

/** Counts the copies queued for sending in the campaign's counters. */
export async function countForwards(db: Executor, campaignId: number, queued: number): Promise<void> {
  if (queued === 0) return;
  await db
    .insert(campaignCounters)
    .values({ campaignId, forwards: queued })
    .onConflictDoUpdate({
      target: campaignCounters.campaignId,
      set: { forwards: sql`${campaignCounters.forwards} + ${queued}`, updatedAt: new Date() },
    });
}
