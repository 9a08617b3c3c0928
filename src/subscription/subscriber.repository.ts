import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { lists, subscribers, subscriptions } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import { toSubscriberList } from './list.repository.js';
import type { SubscriberList } from './list.schemas.js';
import type { Subscriber, SubscriberOnly } from './subscriber.schemas.js';
import type { SubscriberHistory } from './subscriber-history.schemas.js';
import { reportCreated, reportUpdated } from './subscriber-webhooks.js';

export type SubscriberRow = typeof subscribers.$inferSelect;
export type NewSubscriberRow = typeof subscribers.$inferInsert;

/** Row → API shape (reference §6.5). `uuid` is a legacy phpList column, always empty. */
export function toSubscriber(row: SubscriberRow, lists: SubscriberList[] = [], history: SubscriberHistory[] = []): Subscriber {
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
    subscribed_lists: lists,
    history,
  };
}

export async function findSubscriber(db: Executor, id: number): Promise<SubscriberRow | undefined> {
  const [row] = await db.select().from(subscribers).where(eq(subscribers.id, id));
  return row;
}

/** The subscribers of these ids that still exist, in no particular order. */
export async function findSubscribers(db: Executor, ids: readonly number[]): Promise<SubscriberRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(subscribers)
    .where(inArray(subscribers.id, [...ids]));
}

export async function findSubscriberByUniqueId(db: Executor, uniqueId: string): Promise<SubscriberRow | undefined> {
  const [row] = await db.select().from(subscribers).where(eq(subscribers.uniqueId, uniqueId));
  return row;
}

/** The id of the subscriber with this id, or with this address (case-insensitive, on the lower(email) index). */
export async function findSubscriberId(db: Executor, by: { id: number } | { email: string }): Promise<number | undefined> {
  const where = 'id' in by ? eq(subscribers.id, by.id) : sql`lower(${subscribers.email}) = ${by.email.toLowerCase()}`;
  const [row] = await db.select({ id: subscribers.id }).from(subscribers).where(where).limit(1);
  return row?.id;
}

/** Whether another subscriber (not `exceptId`) has this e-mail address, case-insensitively. */
export async function emailTaken(db: Executor, email: string, exceptId?: number): Promise<boolean> {
  const [row] = await db
    .select({ id: subscribers.id })
    .from(subscribers)
    .where(and(sql`lower(${subscribers.email}) = lower(${email})`, exceptId ? ne(subscribers.id, exceptId) : undefined))
    .limit(1);
  return row !== undefined;
}

export type { SubscriberFilter } from './subscriber-filter.js';

/**
 * The lists of several subscribers in one query (not one per subscriber), each subscriber's in subscription
 * order.
 */
export async function listsOfSubscribers(db: Executor, subscriberIds: number[]): Promise<Map<number, SubscriberList[]>> {
  const out = new Map<number, SubscriberList[]>(subscriberIds.map((id) => [id, []]));
  if (subscriberIds.length === 0) return out;
  const rows = await db
    .select({ subscriberId: subscriptions.subscriberId, list: lists })
    .from(subscriptions)
    .innerJoin(lists, eq(lists.id, subscriptions.listId))
    .where(inArray(subscriptions.subscriberId, subscriberIds))
    .orderBy(asc(subscriptions.subscriberId), asc(subscriptions.createdAt), asc(lists.id));
  for (const row of rows) out.get(row.subscriberId)?.push(toSubscriberList(row.list));
  return out;
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

export async function insertSubscriber(db: Executor, values: NewSubscriberRow): Promise<SubscriberRow> {
  const [row] = await db.insert(subscribers).values(values).returning();
  await reportCreated(db, [row!]);
  return row!;
}

/** Updates the given columns and refreshes `updated_at`. */
export async function updateSubscriber(db: Executor, id: number, values: Partial<NewSubscriberRow>): Promise<SubscriberRow | undefined> {
  const [row] = await db
    .update(subscribers)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(subscribers.id, id))
    .returning();
  if (row) await reportUpdated(db, row, values);
  return row;
}

/**
 * Deletes the subscriber; subscriptions, attribute values and history go with it, and so do its deliveries, opens and
 * clicks: not by foreign keys (imports and the event flush write too many rows for per-row checks) but by the
 * statement-level cascade triggers of routines/012_subscriber_children.sql, 021_delivery_parents.sql and
 * 030_tracking_events.sql.
 */
export async function deleteSubscriber(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(subscribers).where(eq(subscribers.id, id)).returning({ id: subscribers.id });
  return rows.length > 0;
}
