import type { AppContext } from '../context.js';
import { settingProblem } from './page-look.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import * as repo from './subscribe-page.repository.js';
import type { SubscribePage, SubscribePageBody, SubscribePageDataBody, SubscribePageDataItem } from './subscribe-page.schemas.js';

export const PAGE_NOT_FOUND = 'Subscribe page not found';

export async function requirePage(ctx: AppContext, id: number): Promise<repo.PageWithOwner> {
  const row = await repo.findPage(ctx.db, id);
  if (!row) throw new NotFoundError(PAGE_NOT_FOUND);
  return row;
}

/** Every page, whoever owns it: pages have no ownership rule (reference §5.11). */
export async function listPages(ctx: AppContext, afterId: number, limit: number) {
  const { rows, total } = await repo.listPages(ctx.db, afterId, limit);
  return toPage(rows.map(repo.toSubscribePage), total, limit, (p) => p.id);
}

export async function getPage(ctx: AppContext, id: number): Promise<SubscribePage> {
  return repo.toSubscribePage(await requirePage(ctx, id));
}

export async function createPage(ctx: AppContext, body: SubscribePageBody, callerId: number): Promise<SubscribePage> {
  const page = await repo.insertPage(ctx.db, { title: body.title.trim(), active: body.active ?? false, ownerId: callerId });
  return getPage(ctx, page.id);
}

/** PUT replaces title and active, and the caller becomes the owner, as in phpList. */
export async function updatePage(ctx: AppContext, id: number, body: SubscribePageBody, callerId: number): Promise<SubscribePage> {
  const page = await repo.updatePage(ctx.db, id, { title: body.title.trim(), active: body.active ?? false, ownerId: callerId });
  if (!page) throw new NotFoundError(PAGE_NOT_FOUND);
  return getPage(ctx, id);
}

export async function deletePage(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deletePage(ctx.db, id))) throw new NotFoundError(PAGE_NOT_FOUND);
}

export async function getPageData(ctx: AppContext, id: number): Promise<SubscribePageDataItem[]> {
  await requirePage(ctx, id);
  return (await repo.pageData(ctx.db, id)).map(repo.toDataItem);
}

export async function setPageData(ctx: AppContext, id: number, body: SubscribePageDataBody): Promise<SubscribePageDataItem> {
  await requirePage(ctx, id);
  const name = body.name.trim();
  // The look of the public pages is checked here, so a typo is told to the administrator, not shown to visitors.
  const problem = settingProblem(name, body.value ?? null);
  if (problem) throw ValidationError.field('value', problem);
  return repo.toDataItem(await repo.upsertPageData(ctx.db, id, name, body.value ?? null));
}
