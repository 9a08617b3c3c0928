import { asc, inArray } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { lists } from '../db/schema/index.js';

export interface ListName {
  readonly id: number;
  readonly name: string;
}

/** The lists among `ids` that still exist, by name (the resubscribe button's lists). */
export async function listNames(db: Executor, ids: number[]): Promise<ListName[]> {
  if (ids.length === 0) return [];
  return db.select({ id: lists.id, name: lists.name }).from(lists).where(inArray(lists.id, ids)).orderBy(asc(lists.name), asc(lists.id));
}
