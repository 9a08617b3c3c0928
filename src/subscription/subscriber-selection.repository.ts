import type { AppDb } from '../db/client.js';
import { int } from '../db/row.js';
import { filterConditions, type SubscriberFilter } from './subscriber-filter.js';

/*
 * "Every subscriber matching the filter" for bulk actions and bulk export: how many, and the next batch of ids in id
 * order after a cursor. The conditions are the list view's own (filterConditions), so the selection is what the
 * administrator saw. With a list the batches walk the subscriptions primary key (list_id, subscriber_id), as the list
 * view's pages do, so a small list among a million subscribers is read without scanning the others.
 */

/** How many subscribers match the filter now. */
export async function countSelection(database: AppDb, filter: SubscriberFilter): Promise<number> {
  const values: unknown[] = [];
  const { where, shape } = filterConditions(filter, values);
  let from = `subscribers s${where ? ` where ${where}` : ''}`;
  if (filter.listId !== undefined) {
    values.push(filter.listId);
    from = `subscriptions m join subscribers s on s.id = m.subscriber_id where m.list_id = $${values.length}${where ? ` and ${where}` : ''}`;
  }
  const rows = await database.prepared(
    `selection_count_${filter.listId !== undefined ? 'list_' : ''}${shape || 'all'}`,
    `select count(*) as n from ${from}`,
    values,
    (row) => int(row, 'n'),
  );
  return rows[0] ?? 0;
}

/** The ids of the next `limit` matching subscribers after `afterId`, in id order. */
export async function nextSelectionBatch(database: AppDb, filter: SubscriberFilter, afterId: number, limit: number): Promise<number[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new Error(`batch size out of range: ${limit}`);
  const values: unknown[] = [afterId];
  const { where, shape } = filterConditions(filter, values);
  if (filter.listId !== undefined) {
    values.push(filter.listId);
    const list = `$${values.length}`;
    return database.prepared(
      `selection_batch_list_${shape || 'all'}_${limit}`,
      `select m.subscriber_id as id
       from subscriptions m join subscribers s on s.id = m.subscriber_id
       where (m.list_id, m.subscriber_id) > (${list}, $1) and m.list_id <= ${list}${where ? ` and ${where}` : ''}
       order by m.list_id, m.subscriber_id
       limit ${limit}`,
      values,
      (row) => int(row, 'id'),
    );
  }
  return database.prepared(
    `selection_batch_${shape || 'all'}_${limit}`,
    `select s.id from subscribers s where s.id > $1${where ? ` and ${where}` : ''} order by s.id limit ${limit}`,
    values,
    (row) => int(row, 'id'),
  );
}
