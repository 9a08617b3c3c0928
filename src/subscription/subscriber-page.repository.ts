import type { AppDb } from '../db/client.js';
import { bool, int, intOrNull, jsonRows, text, textOrNull, type Row } from '../db/row.js';
import type { SubscriberList } from './list.schemas.js';
import type { Subscriber } from './subscriber.schemas.js';
import { filterConditions, type SubscriberFilter } from './subscriber-filter.js';

/*
 * The two hot page reads (`GET /subscribers`, `GET /lists/{id}/subscribers`), each one prepared statement that
 * answers the page, every subscriber's lists and the total in a single round trip. At a million subscribers these
 * pages are what dashboards and sync scripts hammer: planning the three-table join cost more than running it, and
 * mapping rows through the query builder cost more than both, so the SQL is written out and mapped by hand.
 */

/** ATOM in UTC without fraction (the format of shared/time.ts), for timestamps serialised inside SQL JSON. */
const ATOM_SQL = `'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'`;

/** A subscriber's lists as JSON, in subscription order (then list id), shaped as `SubscriberList`. */
const LISTS_OF_S = `(
  select coalesce(json_agg(json_build_object(
    'id', l.id, 'name', l.name, 'created_at', to_char(l.created_at at time zone 'UTC', ${ATOM_SQL}),
    'description', l.description, 'list_position', l.list_position, 'subject_prefix', l.subject_prefix,
    'public', l.public, 'category', l.category, 'rss_feed', l.rss_feed) order by x.created_at, l.id), '[]'::json)
  from subscriptions x join lists l on l.id = x.list_id
  where x.subscriber_id = s.id)`;

/** Timestamps leave as ATOM text: parsing them into Dates and formatting them again cost more than the query. */
const SUBSCRIBER_COLUMNS = `s.id, s.email,
  to_char(s.created_at at time zone 'UTC', ${ATOM_SQL}) as created_at,
  to_char(s.updated_at at time zone 'UTC', ${ATOM_SQL}) as updated_at,
  s.confirmed, s.blacklisted, s.bounce_count, s.unique_id, s.html_email, s.disabled, ${LISTS_OF_S} as lists`;

/**
 * One row of a page: the total (on every row) and a subscriber, null on the one row that only carries the total of an
 * empty page. The subscriber is read straight into the API's own shape (snake_case, timestamps already ATOM text):
 * turning it into a camelCase object and back would cost this hot read for nothing.
 */
interface PageRow {
  total: number;
  item: Subscriber | null;
}

function toPageRow(row: Row): PageRow {
  // bigint: a string from node-postgres, a number from PGlite; `int` reads both.
  const total = int(row, 'total');
  if (row.id === null) return { total, item: null };
  return {
    total,
    item: {
      id: int(row, 'id'),
      email: text(row, 'email'),
      created_at: text(row, 'created_at'),
      updated_at: text(row, 'updated_at'),
      confirmed: bool(row, 'confirmed'),
      blacklisted: bool(row, 'blacklisted'),
      bounce_count: int(row, 'bounce_count'),
      unique_id: text(row, 'unique_id'),
      uuid: '',
      html_email: bool(row, 'html_email'),
      disabled: bool(row, 'disabled'),
      subscribed_lists: jsonRows(row, 'lists').map(toSubscriberList),
      history: [],
    },
  };
}

/** A list as LISTS_OF_S builds it in JSON. */
const toSubscriberList = (list: Row): SubscriberList => ({
  id: int(list, 'id'),
  name: text(list, 'name'),
  created_at: text(list, 'created_at'),
  description: textOrNull(list, 'description'),
  list_position: intOrNull(list, 'list_position'),
  subject_prefix: textOrNull(list, 'subject_prefix'),
  public: bool(list, 'public'),
  category: text(list, 'category'),
  rss_feed: textOrNull(list, 'rss_feed'),
});

export interface SubscriberPage {
  items: Subscriber[];
  total: number;
}

function toPage(rows: PageRow[]): SubscriberPage {
  const items: Subscriber[] = [];
  for (const r of rows) if (r.item) items.push(r.item);
  return { items, total: rows[0]?.total ?? 0 };
}

/**
 * A page of a list's members and the list's member count (from the counter shards), or null when there is no
 * such list. The range is a row comparison on the primary key (list_id, subscriber_id), which only that index can
 * serve, as its start key, with `list_id <= $1` as its stop (together: list_id = $1; written as `list_id = $1`,
 * PostgreSQL 15 starts at the list's first member instead). The page is materialised before the join, so a generic
 * plan cannot merge-join the subscribers from the start. Page 40,000 costs what page 1 does.
 */
export async function listMemberPage(database: AppDb, listId: number, afterId: number, limit: number): Promise<SubscriberPage | null> {
  const rows = await database.prepared(
    `list_member_page_${pageSize(limit)}`,
    `with page as materialized (
       select m.subscriber_id from subscriptions m
       where (m.list_id, m.subscriber_id) > ($1, $2) and m.list_id <= $1
       order by m.list_id, m.subscriber_id
       limit ${pageSize(limit)}),
     -- Materialised: inline, the planner evaluates the correlated sum once per page row (25 times) instead of once.
     c as materialized (
       select (select coalesce(sum(members), 0) from list_member_counts where list_id = lists.id) as total
       from lists where id = $1)
     select c.total, p.*
     from c
     left join lateral (
       select ${SUBSCRIBER_COLUMNS}
       from page join subscribers s on s.id = page.subscriber_id) p on true
     order by p.id`,
    [listId, afterId],
    toPageRow,
  );
  return rows.length === 0 ? null : toPage(rows);
}

/**
 * A page of all subscribers matching the filter and how many match. Without a filter the total is the sum of the
 * counter shards (routines/011_subscriber_count.sql); a filtered total has to count. Each filter combination is its
 * own prepared statement; the values are always parameters.
 */
export async function subscriberPage(database: AppDb, filter: SubscriberFilter, afterId: number, limit: number): Promise<SubscriberPage> {
  const values: unknown[] = [afterId];
  const { where, shape } = filterConditions(filter, values);
  const nameParts = shape ? [shape] : [];
  if (filter.listId !== undefined) return listFilteredPage(database, filter.listId, values, where, nameParts, limit);
  const total =
    where === '' ? `(select coalesce(sum(subscribers), 0) from subscriber_counts)` : `(select count(*) from subscribers s where ${where})`;
  const rows = await database.prepared(
    `subscriber_page_${nameParts.join('_') || 'all'}_${pageSize(limit)}`,
    `select c.total, p.*
     from (select ${total} as total) c
     left join lateral (
       select ${SUBSCRIBER_COLUMNS}
       from subscribers s
       where s.id > $1${where ? ` and ${where}` : ''}
       order by s.id
       limit ${pageSize(limit)}) p on true
     order by p.id`,
    values,
    toPageRow,
  );
  return toPage(rows);
}

/**
 * `GET /subscribers?list_id=` with the other filters: driven from the list's memberships by the same primary-key
 * range as listMemberPage, so a deep page of a small list does not walk the subscribers it skips. Without other
 * filters the total comes from the list's counter shards; with them it has to count the list's members.
 */
async function listFilteredPage(
  database: AppDb,
  listId: number,
  values: unknown[],
  where: string,
  nameParts: string[],
  limit: number,
): Promise<SubscriberPage> {
  values.push(listId);
  const list = `$${values.length}`;
  const total = where
    ? `(select count(*) from subscriptions m join subscribers s on s.id = m.subscriber_id where m.list_id = ${list} and ${where})`
    : `(select coalesce(sum(members), 0) from list_member_counts where list_id = ${list})`;
  const rows = await database.prepared(
    `subscriber_page_list_${nameParts.join('_') || 'all'}_${pageSize(limit)}`,
    `select c.total, p.*
     from (select ${total} as total) c
     left join lateral (
       select ${SUBSCRIBER_COLUMNS}
       from subscriptions m join subscribers s on s.id = m.subscriber_id
       where (m.list_id, m.subscriber_id) > (${list}, $1) and m.list_id <= ${list}${where ? ` and ${where}` : ''}
       order by m.list_id, m.subscriber_id
       limit ${pageSize(limit)}) p on true
     order by p.id`,
    values,
    toPageRow,
  );
  return toPage(rows);
}

/**
 * The page size as a literal in the statement (one prepared statement per size, 100 at most): with `LIMIT $n` a
 * generic plan assumes a tenth of the table and picks scans and joins made for that.
 */
function pageSize(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error(`page size out of range: ${limit}`);
  return limit;
}
