import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { listMemberCounts, lists, subscribers, subscriptions } from '../db/schema/index.js';
import type { SubscriberRow } from './subscriber.repository.js';
import { reportConfirmed, reportCreated } from './subscriber-webhooks.js';

/**
 * A list's member count, or undefined when there is no such list, in one round trip: the sum of its counter shards,
 * which triggers on `subscriptions` keep up to date (routines/010_list_member_counts.sql). At most 16 rows by
 * primary key, however large the list.
 */
export async function countMembersOfList(db: Executor, listId: number): Promise<number | undefined> {
  const [row] = await db
    .select({
      n: sql<string>`coalesce((select sum(${listMemberCounts.members}) from ${listMemberCounts} where ${listMemberCounts.listId} = ${lists.id}), 0)`,
    })
    .from(lists)
    .where(eq(lists.id, listId));
  return row ? Number(row.n) : undefined;
}

/** Subscribers by e-mail, matched case-insensitively (the unique index is on lower(email)). */
export async function findSubscribersByEmails(db: Executor, emails: string[]): Promise<SubscriberRow[]> {
  if (emails.length === 0) return [];
  const lowered = emails.map((e) => e.toLowerCase());
  return db
    .select()
    .from(subscribers)
    .where(inArray(sql`lower(${subscribers.email})`, lowered));
}

/**
 * Inserts subscribers; an address another writer stored meanwhile is skipped, not an error. Answers the ids of
 * the subscribers this call created.
 */
export async function insertSubscribers(db: Executor, values: (typeof subscribers.$inferInsert)[]): Promise<number[]> {
  if (values.length === 0) return [];
  const rows = await db.insert(subscribers).values(values).onConflictDoNothing().returning();
  await reportCreated(db, rows);
  return rows.map((r) => r.id);
}

export async function confirmSubscribers(db: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await db
    .update(subscribers)
    .set({ confirmed: true, updatedAt: new Date() })
    .where(and(inArray(subscribers.id, ids), eq(subscribers.confirmed, false)))
    .returning();
  await reportConfirmed(db, rows);
}

/** Subscribes; existing subscriptions stay as they are. Answers the ids newly subscribed. */
export async function insertSubscriptions(db: Executor, listId: number, subscriberIds: number[]): Promise<Set<number>> {
  if (subscriberIds.length === 0) return new Set();
  const rows = await db
    .insert(subscriptions)
    .values(subscriberIds.map((subscriberId) => ({ listId, subscriberId })))
    .onConflictDoNothing()
    .returning({ subscriberId: subscriptions.subscriberId });
  return new Set(rows.map((r) => r.subscriberId));
}

/** Adds one subscriber to these lists; answers the ids of the lists actually added (already a member: left out). */
export async function joinLists(db: Executor, subscriberId: number, listIds: readonly number[]): Promise<number[]> {
  if (listIds.length === 0) return [];
  const rows = await db
    .insert(subscriptions)
    .values(listIds.map((listId) => ({ listId, subscriberId })))
    .onConflictDoNothing()
    .returning({ listId: subscriptions.listId });
  return rows.map((r) => r.listId);
}

/** Subscription dates of these subscribers on the list. */
export async function subscriptionDates(db: Executor, listId: number, subscriberIds: number[]): Promise<Map<number, Date>> {
  if (subscriberIds.length === 0) return new Map();
  const rows = await db
    .select({ subscriberId: subscriptions.subscriberId, createdAt: subscriptions.createdAt })
    .from(subscriptions)
    .where(and(eq(subscriptions.listId, listId), inArray(subscriptions.subscriberId, subscriberIds)));
  return new Map(rows.map((r) => [r.subscriberId, r.createdAt]));
}

/** Unsubscribes these addresses from the list; unknown addresses and non-members are ignored. Answers the ids removed. */
export async function removeMembers(db: Executor, listId: number, emails: string[]): Promise<number[]> {
  const lowered = emails.map((e) => e.toLowerCase());
  const rows = await db
    .delete(subscriptions)
    .where(
      and(
        eq(subscriptions.listId, listId),
        inArray(
          subscriptions.subscriberId,
          db
            .select({ id: subscribers.id })
            .from(subscribers)
            .where(inArray(sql`lower(${subscribers.email})`, lowered)),
        ),
      ),
    )
    .returning({ subscriberId: subscriptions.subscriberId });
  return rows.map((r) => r.subscriberId);
}
