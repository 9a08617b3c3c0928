import { and, asc, count, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import {
  administrators,
  attributeDefinitions,
  lists,
  subscribePageData,
  subscribePages,
  subscriberAttributeValues,
  subscriptions,
} from '../db/schema/index.js';
import { toAdministrator, type AdministratorRow } from '../identity/index.js';
import type { SubscribePage, SubscribePageDataItem } from './subscribe-page.schemas.js';

export type PageRow = typeof subscribePages.$inferSelect;
export type PageDataRow = typeof subscribePageData.$inferSelect;
export interface PageWithOwner {
  page: PageRow;
  owner: AdministratorRow | null;
}

/** Row → API shape (reference §6.12). */
export function toSubscribePage({ page, owner }: PageWithOwner): SubscribePage {
  return { id: page.id, title: page.title, active: page.active, owner: owner ? toAdministrator(owner) : null };
}

export function toDataItem(row: PageDataRow): SubscribePageDataItem {
  return { id: row.pageId, name: row.name, data: row.data };
}

const withOwner = (db: Executor) =>
  db
    .select({ page: subscribePages, owner: administrators })
    .from(subscribePages)
    .leftJoin(administrators, eq(administrators.id, subscribePages.ownerId));

export async function findPage(db: Executor, id: number): Promise<PageWithOwner | undefined> {
  const [row] = await withOwner(db).where(eq(subscribePages.id, id));
  return row;
}

/** One keyset page of all pages (id order) and their number. */
export async function listPages(db: Executor, afterId: number, limit: number) {
  const rows = await withOwner(db).where(gt(subscribePages.id, afterId)).orderBy(asc(subscribePages.id)).limit(limit);
  const [total] = await db.select({ n: count() }).from(subscribePages);
  return { rows, total: total?.n ?? 0 };
}

export async function insertPage(db: Executor, values: typeof subscribePages.$inferInsert): Promise<PageRow> {
  const [row] = await db.insert(subscribePages).values(values).returning();
  return row!;
}

export async function updatePage(db: Executor, id: number, values: Partial<typeof subscribePages.$inferInsert>): Promise<PageRow | undefined> {
  const [row] = await db
    .update(subscribePages)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(subscribePages.id, id))
    .returning();
  return row;
}

/** Deletes a page; its data goes with it (foreign-key cascade). */
export async function deletePage(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(subscribePages).where(eq(subscribePages.id, id)).returning({ id: subscribePages.id });
  return rows.length > 0;
}

/** A page's settings, by name. */
export async function pageData(db: Executor, pageId: number): Promise<PageDataRow[]> {
  return db.select().from(subscribePageData).where(eq(subscribePageData.pageId, pageId)).orderBy(asc(subscribePageData.name));
}

/** Writes one setting, replacing what was stored under its name (reference §8.1: upsert by page and name). */
export async function upsertPageData(db: Executor, pageId: number, name: string, data: string | null): Promise<PageDataRow> {
  const [row] = await db
    .insert(subscribePageData)
    .values({ pageId, name, data })
    .onConflictDoUpdate({ target: [subscribePageData.pageId, subscribePageData.name], set: { data } })
    .returning();
  return row!;
}

/** The public lists among these ids. */
export async function publicListsAmong(db: Executor, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(lists)
    .where(and(inArray(lists.id, ids), eq(lists.isPublic, true)));
}

/** The attribute definitions among these ids. */
export async function definitionsAmong(db: Executor, ids: number[]) {
  if (ids.length === 0) return [];
  return db.select().from(attributeDefinitions).where(inArray(attributeDefinitions.id, ids));
}

/** Writes attribute values of one subscriber, replacing values already stored for the same definitions. */
export async function upsertAttributeValues(db: Executor, subscriberId: number, values: { definitionId: number; value: string }[]): Promise<void> {
  if (values.length === 0) return;
  await db
    .insert(subscriberAttributeValues)
    .values(values.map((v) => ({ subscriberId, definitionId: v.definitionId, value: v.value })))
    .onConflictDoUpdate({
      target: [subscriberAttributeValues.subscriberId, subscriberAttributeValues.definitionId],
      set: { value: sql`excluded.value`, updatedAt: new Date() },
    });
}

export async function isMember(db: Executor, listId: number, subscriberId: number): Promise<boolean> {
  const rows = await db
    .select({ listId: subscriptions.listId })
    .from(subscriptions)
    .where(and(eq(subscriptions.listId, listId), eq(subscriptions.subscriberId, subscriberId)));
  return rows.length > 0;
}
