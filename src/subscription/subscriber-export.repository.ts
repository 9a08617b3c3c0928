import { sql, type SQL } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { bool, int, text, textOrNull, timestamp, type Row } from '../db/row.js';

export interface ExportFilter {
  listId: number | null;
  confirmed: boolean | null;
  blacklisted: boolean | null;
  /** Which date the range applies to, and the range [from, to). */
  dates: { column: 'created' | 'updated' | 'subscribed'; from: Date | null; to: Date | null } | null;
}

export interface ExportRow {
  id: number;
  email: string;
  confirmed: boolean;
  blacklisted: boolean;
  bounceCount: number;
  createdAt: Date;
  updatedAt: Date;
  uniqueId: string;
  htmlEmail: boolean;
  disabled: boolean;
  extraData: string | null;
  foreignKey: string | null;
  /** Whether the subscriber passes the filter (see exportBatch). */
  wanted: boolean;
}

const toExportRow = (row: Row): ExportRow => ({
  id: int(row, 'id'),
  email: text(row, 'email'),
  confirmed: bool(row, 'confirmed'),
  blacklisted: bool(row, 'blacklisted'),
  bounceCount: int(row, 'bounce_count'),
  createdAt: timestamp(row, 'created_at'),
  updatedAt: timestamp(row, 'updated_at'),
  uniqueId: text(row, 'unique_id'),
  htmlEmail: bool(row, 'html_email'),
  disabled: bool(row, 'disabled'),
  extraData: textOrNull(row, 'extra_data'),
  foreignKey: textOrNull(row, 'foreign_key'),
  wanted: bool(row, 'wanted'),
});

export interface AttributeValue {
  subscriberId: number;
  definitionId: number;
  value: string | null;
}

/**
 * The next `limit` subscribers after `afterId` in id order, each with `wanted`: whether it passes the filter. The
 * filter is a column, not a WHERE clause, so every batch is one bounded range scan of an index (the subscriptions
 * primary key (list_id, subscriber_id) with a list, subscribers' own without): a filter that matches little can
 * never make the planner scan the whole table for each batch. The redundant `s.id > afterId` keeps a merge join
 * from walking subscribers from the first id every time.
 */
export async function exportBatch(db: Executor, filter: ExportFilter, afterId: number, limit: number): Promise<ExportRow[]> {
  const where: SQL[] = [];
  if (filter.confirmed !== null) where.push(sql`s.confirmed = ${filter.confirmed}`);
  if (filter.blacklisted !== null) where.push(sql`s.blacklisted = ${filter.blacklisted}`);
  if (filter.dates) {
    const column = { created: sql`s.created_at`, updated: sql`s.updated_at`, subscribed: sql`m.created_at` }[filter.dates.column];
    if (filter.dates.from) where.push(sql`${column} >= ${filter.dates.from.toISOString()}::timestamptz`);
    if (filter.dates.to) where.push(sql`${column} < ${filter.dates.to.toISOString()}::timestamptz`);
  }
  const wanted = where.length > 0 ? sql.join(where, sql` and `) : sql`true`;
  const columns = sql`s.id, s.email, s.confirmed, s.blacklisted, s.bounce_count, s.created_at, s.updated_at, s.unique_id,
    s.html_email, s.disabled, s.extra_data, s.foreign_key, coalesce(${wanted}, false) as wanted`;
  if (filter.listId !== null) {
    return queryRows(
      db,
      sql`select ${columns}
          from (select subscriber_id, created_at from subscriptions
                where list_id = ${filter.listId} and subscriber_id > ${afterId}
                order by subscriber_id limit ${limit}) m
          join subscribers s on s.id = m.subscriber_id and s.id > ${afterId}
          order by s.id`,
      toExportRow,
    );
  }
  return queryRows(db, sql`select ${columns} from subscribers s where s.id > ${afterId} order by s.id limit ${limit}`, toExportRow);
}

/** The values of these definitions for subscribers in [firstId, lastId] (the batch's range, one primary-key scan). */
export async function attributeValues(db: Executor, firstId: number, lastId: number, definitionIds: number[]): Promise<AttributeValue[]> {
  return queryRows(
    db,
    sql`select subscriber_id, definition_id, value from subscriber_attribute_values
        where subscriber_id between ${firstId} and ${lastId}
          and definition_id = any(${sql.param(definitionIds)}::integer[])`,
    (row) => ({ subscriberId: int(row, 'subscriber_id'), definitionId: int(row, 'definition_id'), value: textOrNull(row, 'value') }),
  );
}

/** These subscribers (a bulk selection's batch), in id order; ids that no longer exist are passed over. */
export async function exportRowsByIds(db: Executor, ids: number[]): Promise<ExportRow[]> {
  return queryRows(
    db,
    sql`select s.id, s.email, s.confirmed, s.blacklisted, s.bounce_count, s.created_at, s.updated_at, s.unique_id,
          s.html_email, s.disabled, s.extra_data, s.foreign_key, true as wanted
        from subscribers s where s.id = any(${sqlArray(ids, 'integer')}) order by s.id`,
    toExportRow,
  );
}

/** The values of these definitions for these subscribers (a page of the list view). */
export async function attributeValuesOf(db: Executor, subscriberIds: number[], definitionIds: number[]): Promise<AttributeValue[]> {
  return queryRows(
    db,
    sql`select subscriber_id, definition_id, value from subscriber_attribute_values
        where subscriber_id = any(${sqlArray(subscriberIds, 'integer')}) and definition_id = any(${sqlArray(definitionIds, 'integer')})`,
    (row) => ({ subscriberId: int(row, 'subscriber_id'), definitionId: int(row, 'definition_id'), value: textOrNull(row, 'value') }),
  );
}
