import { and, eq, sql } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { int } from '../db/row.js';
import { bulkJobs, subscribers } from '../db/schema/index.js';
import { reportBlacklisted } from './subscriber-webhooks.js';

/*
 * The set-based statements of bulk actions: each takes one batch of subscriber ids (an array parameter) and acts on
 * all of them in one statement. The counters (list members, sendable members, subscribers) follow by the
 * statement-level triggers of src/db/routines, as they do for single changes.
 */

export type BulkJobRow = typeof bulkJobs.$inferSelect;

export async function insertJob(db: Executor, values: typeof bulkJobs.$inferInsert): Promise<BulkJobRow> {
  const [row] = await db.insert(bulkJobs).values(values).returning();
  return row!;
}

export async function findJob(db: Executor, id: number): Promise<BulkJobRow | undefined> {
  const [row] = await db.select().from(bulkJobs).where(eq(bulkJobs.id, id));
  return row;
}

/** Adds a batch's progress (in the batch's own transaction, so progress and work commit together). */
export async function addProgress(db: Executor, id: number, done: number, affected: number): Promise<void> {
  await db
    .update(bulkJobs)
    .set({ done: sql`${bulkJobs.done} + ${done}`, affected: sql`${bulkJobs.affected} + ${affected}` })
    .where(eq(bulkJobs.id, id));
}

/** Ends a running job; the total becomes what was worked through when more matched than at the start. */
export async function finishJob(db: Executor, id: number, state: 'done' | 'failed' | 'interrupted', error: string | null): Promise<void> {
  await db
    .update(bulkJobs)
    .set({ state, error, finishedAt: new Date(), total: sql`greatest(${bulkJobs.total}, ${bulkJobs.done})` })
    .where(and(eq(bulkJobs.id, id), eq(bulkJobs.state, 'running')));
}

/**
 * Subscribes the batch to the list, leaving out blacklisted subscribers (flag or blacklist entry), as adding members
 * one by one does; existing subscriptions stay. Answers the ids newly subscribed.
 */
export async function addToList(db: Executor, listId: number, ids: number[]): Promise<number[]> {
  return queryRows(
    db,
    sql`insert into subscriptions (list_id, subscriber_id)
        select ${listId}, s.id from subscribers s
        where s.id = any(${sqlArray(ids, 'integer')}) and not s.blacklisted
          and not exists (select 1 from blacklist b where lower(b.email) = lower(s.email))
        on conflict do nothing
        returning subscriber_id`,
    (row) => int(row, 'subscriber_id'),
  );
}

/** Unsubscribes the batch from the list. Answers the ids that were members. */
export async function removeFromList(db: Executor, listId: number, ids: number[]): Promise<number[]> {
  return queryRows(
    db,
    sql`delete from subscriptions where list_id = ${listId} and subscriber_id = any(${sqlArray(ids, 'integer')})
        returning subscriber_id`,
    (row) => int(row, 'subscriber_id'),
  );
}

/**
 * Blacklists the batch: a blacklist entry for each address without one (with the reason and the administrator), and
 * the flag on each subscriber without it, reported as `subscriber.blacklisted` like a single blacklisting. Answers
 * the ids newly flagged.
 */
export async function blacklist(db: Executor, ids: number[], reason: string, adminId: number): Promise<number[]> {
  await db.execute(
    sql`insert into blacklist (email, reason, added_by)
        select s.email, ${reason}, ${adminId} from subscribers s where s.id = any(${sqlArray(ids, 'integer')})
        on conflict do nothing`,
  );
  const rows = await db
    .update(subscribers)
    .set({ blacklisted: true, updatedAt: new Date() })
    .where(and(sql`${subscribers.id} = any(${sqlArray(ids, 'integer')})`, eq(subscribers.blacklisted, false)))
    .returning();
  await reportBlacklisted(db, rows);
  return rows.map((r) => r.id);
}

/** Deletes the batch; their subscriptions, values, history and deliveries go by the cascade triggers. */
export async function deleteSubscribers(db: Executor, ids: number[]): Promise<number[]> {
  return queryRows(db, sql`delete from subscribers where id = any(${sqlArray(ids, 'integer')}) returning id`, (row) => int(row, 'id'));
}
