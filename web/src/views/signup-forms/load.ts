import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import type { AttributeDefinition, List } from '../../api/types';

export type SubscribePage = paths['/api/v2/subscribe-pages/{pageId}']['get']['responses'][200]['content']['application/json'];
export type DataItem = paths['/api/v2/subscribe-pages/{pageId}/data']['get']['responses'][200]['content']['application/json'][number];

/** Every item of a cursor-paged listing: a form offers any list or attribute, not only the first hundred. */
async function everyItem<T>(page: (after: number) => Promise<{ items: T[]; pagination: { has_more: boolean; next_cursor: number | null } }>) {
  const items: T[] = [];
  let after = 0;
  for (;;) {
    const answer = await page(after);
    items.push(...answer.items);
    if (!answer.pagination.has_more || answer.pagination.next_cursor === null) return items;
    after = answer.pagination.next_cursor;
  }
}

/** The lists this administrator can see (their own and the owner-less ones). */
export const allLists = (): Promise<List[]> =>
  everyItem((after) => unwrap(api.GET('/api/v2/lists', { params: { query: { after_id: after, limit: 100 } } })));

export const allAttributes = (): Promise<AttributeDefinition[]> =>
  everyItem((after) => unwrap(api.GET('/api/v2/attributes', { params: { query: { after_id: after, limit: 100 } } })));

export const pageData = (pageId: number): Promise<DataItem[]> =>
  unwrap(api.GET('/api/v2/subscribe-pages/{pageId}/data', { params: { path: { pageId } } }));
