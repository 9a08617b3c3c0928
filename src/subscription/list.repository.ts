import { and, asc, count, eq, gt, isNull, or } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { lists } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import type { ListBody, SubscriberList } from './list.schemas.js';

export type ListRow = typeof lists.$inferSelect;

/** Row → API shape (reference §6.7). */
export function toSubscriberList(row: ListRow): SubscriberList {
  return {
    id: row.id,
    name: row.name,
    created_at: toAtom(row.createdAt),
    description: row.description,
    list_position: row.listPosition,
    subject_prefix: row.subjectPrefix,
    public: row.isPublic,
    category: row.category,
    rss_feed: row.rssFeed,
  };
}

/** Body → columns. Every field is written: absent ones take their default (PUT replaces, reference §5.9). */
export function listColumns(body: ListBody) {
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    listPosition: body.list_position ?? null,
    isPublic: body.public ?? false,
    category: body.category ?? '',
    subjectPrefix: body.subject_prefix ?? null,
    rssFeed: body.rss_feed ?? null,
  };
}

export async function findList(db: Executor, id: number): Promise<ListRow | undefined> {
  const [row] = await db.select().from(lists).where(eq(lists.id, id));
  return row;
}

/** The lists an administrator may see: their own and the owner-less ones. */
export async function listListsVisibleTo(db: Executor, ownerId: number, afterId: number, limit: number) {
  const visible = or(eq(lists.ownerId, ownerId), isNull(lists.ownerId));
  const rows = await db
    .select()
    .from(lists)
    .where(and(visible, gt(lists.id, afterId)))
    .orderBy(asc(lists.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(lists).where(visible);
  return { rows, total: total?.n ?? 0 };
}

export async function insertList(db: Executor, values: typeof lists.$inferInsert): Promise<ListRow> {
  const [row] = await db.insert(lists).values(values).returning();
  return row!;
}

export async function updateList(db: Executor, id: number, values: Partial<typeof lists.$inferInsert>): Promise<ListRow | undefined> {
  const [row] = await db
    .update(lists)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(lists.id, id))
    .returning();
  return row;
}

/**
 * Deletes a list; its subscriptions go with it (the statement-level cascade trigger of
 * routines/012_subscriber_children.sql, not a foreign key), its subscribers stay.
 */
export async function deleteList(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(lists).where(eq(lists.id, id)).returning({ id: lists.id });
  return rows.length > 0;
}
