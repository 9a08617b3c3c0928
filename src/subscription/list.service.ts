import type { AppContext } from '../context.js';
import { ForbiddenError, NotFoundError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import * as repo from './list.repository.js';
import type { ListBody, SubscriberList } from './list.schemas.js';

export const LIST_NOT_FOUND = 'Subscriber list not found.';

/** The list, or 404. No ownership check (member reads and counts are open to every administrator). */
export async function requireList(ctx: AppContext, id: number): Promise<repo.ListRow> {
  const row = await repo.findList(ctx.db, id);
  if (!row) throw new NotFoundError(LIST_NOT_FOUND);
  return row;
}

/** The list, or 404; then 403 `Access denied.` when it has an owner other than the caller (reference §2.4). */
export async function requireOwnedList(ctx: AppContext, id: number, callerId: number): Promise<repo.ListRow> {
  const row = await requireList(ctx, id);
  if (row.ownerId !== null && row.ownerId !== callerId) throw new ForbiddenError('Access denied.');
  return row;
}

export async function listLists(ctx: AppContext, callerId: number, afterId: number, limit: number) {
  const { rows, total } = await repo.listListsVisibleTo(ctx.db, callerId, afterId, limit);
  return toPage(rows.map(repo.toSubscriberList), total, limit, (l) => l.id);
}

export async function getList(ctx: AppContext, id: number, callerId: number): Promise<SubscriberList> {
  return repo.toSubscriberList(await requireOwnedList(ctx, id, callerId));
}

export async function createList(ctx: AppContext, body: ListBody, callerId: number): Promise<SubscriberList> {
  const row = await repo.insertList(ctx.db, { ...repo.listColumns(body), ownerId: callerId });
  return repo.toSubscriberList(row);
}

export async function updateList(ctx: AppContext, id: number, body: ListBody, callerId: number): Promise<SubscriberList> {
  await requireOwnedList(ctx, id, callerId);
  const row = await repo.updateList(ctx.db, id, repo.listColumns(body));
  if (!row) throw new NotFoundError(LIST_NOT_FOUND);
  return repo.toSubscriberList(row);
}

export async function deleteList(ctx: AppContext, id: number, callerId: number): Promise<void> {
  await requireOwnedList(ctx, id, callerId);
  await repo.deleteList(ctx.db, id);
}
