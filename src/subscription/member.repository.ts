import { asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { lists, subscriptions, type subscribers } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import { toSubscriberList } from './list.repository.js';
import type { SubscriberList } from './list.schemas.js';
import type { Subscriber, SubscriberOnly } from './list-member.schemas.js';

/*
 * The Subscriber output shapes (reference §6.5, §6.6) as list members need them. The subscribers resource
 * has its own copy on its branch; the two are merged into one when the branches meet.
 */

export type SubscriberRow = typeof subscribers.$inferSelect;

/** Full view, as in list-member pages: `history` is only filled by the single-subscriber read. */
export function toSubscriber(row: SubscriberRow, subscribedLists: SubscriberList[]): Subscriber {
  return {
    id: row.id,
    email: row.email,
    created_at: toAtom(row.createdAt),
    updated_at: toAtom(row.updatedAt),
    confirmed: row.confirmed,
    blacklisted: row.blacklisted,
    bounce_count: row.bounceCount,
    unique_id: row.uniqueId,
    uuid: '',
    html_email: row.htmlEmail,
    disabled: row.disabled,
    subscribed_lists: subscribedLists,
    history: [],
  };
}

/** The subscriber-only view embedded in a Subscription. */
export function toSubscriberOnly(row: SubscriberRow): SubscriberOnly {
  return {
    id: row.id,
    email: row.email,
    created_at: toAtom(row.createdAt),
    confirmed: row.confirmed,
    blacklisted: row.blacklisted,
    bounce_count: row.bounceCount,
    unique_id: row.uniqueId,
    html_email: row.htmlEmail,
    disabled: row.disabled,
  };
}

/** The lists of each subscriber, in subscription order, in one query for a whole page. */
export async function listsOfSubscribers(db: Executor, subscriberIds: number[]): Promise<Map<number, SubscriberList[]>> {
  const out = new Map<number, SubscriberList[]>(subscriberIds.map((id) => [id, []]));
  if (subscriberIds.length === 0) return out;
  const rows = await db
    .select({ subscriberId: subscriptions.subscriberId, list: lists })
    .from(subscriptions)
    .innerJoin(lists, eq(lists.id, subscriptions.listId))
    .where(inArray(subscriptions.subscriberId, subscriberIds))
    .orderBy(asc(subscriptions.subscriberId), asc(subscriptions.createdAt), asc(subscriptions.listId));
  for (const row of rows) out.get(row.subscriberId)?.push(toSubscriberList(row.list));
  return out;
}
