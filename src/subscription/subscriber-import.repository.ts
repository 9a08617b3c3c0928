import { sql } from 'drizzle-orm';
import { queryRows, type Executor, sqlArray } from '../db/client.js';
import { bool, int, text, textOrNull, type Row } from '../db/row.js';

/*
 * The import's bulk statements. Each takes whole columns as arrays and unnests them, so a batch of thousands of
 * rows is one round trip per table, on PGlite and PostgreSQL alike (no COPY, which PGlite lacks).
 */

export interface ExistingSubscriber {
  id: number;
  email: string;
  foreignKey: string | null;
  confirmed: boolean;
  blacklisted: boolean;
  htmlEmail: boolean;
  disabled: boolean;
  extraData: string | null;
  /** Created or updated by this transaction, i.e. by an earlier row of the file being imported. */
  touchedByImport: boolean;
}

const toExisting = (row: Row): ExistingSubscriber => ({
  id: int(row, 'id'),
  email: text(row, 'email'),
  foreignKey: textOrNull(row, 'foreign_key'),
  confirmed: bool(row, 'confirmed'),
  blacklisted: bool(row, 'blacklisted'),
  htmlEmail: bool(row, 'html_email'),
  disabled: bool(row, 'disabled'),
  extraData: textOrNull(row, 'extra_data'),
  touchedByImport: bool(row, 'touched'),
});

/** Subscribers with any of these (lower-cased) addresses or foreign keys, each index used for its own half. */
export async function findExisting(db: Executor, emails: string[], foreignKeys: string[]): Promise<ExistingSubscriber[]> {
  // now() is the transaction's start: the import's rows carry it in created_at (insert) or updated_at (update).
  const columns = sql`id, email, foreign_key, confirmed, blacklisted, html_email, disabled, extra_data,
    (created_at = now() or updated_at = now()) as touched`;
  const byEmail = sql`select ${columns} from subscribers where lower(email) = any(${sqlArray(emails, 'text')})`;
  if (foreignKeys.length === 0) return queryRows(db, byEmail, toExisting);
  return queryRows(
    db,
    sql`${byEmail} union select ${columns} from subscribers where foreign_key = any(${sqlArray(foreignKeys, 'text')})`,
    toExisting,
  );
}

/** The lower-cased addresses among these that are in the blacklist table. */
export async function blacklistedEmails(db: Executor, emails: string[]): Promise<Set<string>> {
  const rows = await queryRows(db, sql`select lower(email) as email from blacklist where lower(email) = any(${sqlArray(emails, 'text')})`, (row) =>
    text(row, 'email'),
  );
  return new Set(rows);
}

export interface NewSubscribers {
  email: string[];
  uniqueId: string[];
  confirmed: boolean[];
  blacklisted: boolean[];
  htmlEmail: boolean[];
  disabled: boolean[];
  extraData: (string | null)[];
  foreignKey: (string | null)[];
}

/**
 * Inserts the new subscribers; an address another writer stored meanwhile is left out (DO NOTHING), so the
 * answer, keyed by lower-cased address, holds exactly the rows created.
 */
export async function insertSubscribers(db: Executor, c: NewSubscribers): Promise<Map<string, number>> {
  if (c.email.length === 0) return new Map();
  const created = await queryRows(
    db,
    sql`insert into subscribers (email, unique_id, confirmed, blacklisted, html_email, disabled, extra_data, foreign_key)
        select * from unnest(${sqlArray(c.email, 'text')}, ${sqlArray(c.uniqueId, 'text')}, ${sqlArray(c.confirmed, 'boolean')},
          ${sqlArray(c.blacklisted, 'boolean')}, ${sqlArray(c.htmlEmail, 'boolean')}, ${sqlArray(c.disabled, 'boolean')},
          ${sqlArray(c.extraData, 'text')}, ${sqlArray(c.foreignKey, 'text')})
        on conflict (lower(email)) do nothing
        returning id, email`,
    (row): [string, number] => [text(row, 'email').toLowerCase(), int(row, 'id')],
  );
  return new Map(created);
}

/** New values per subscriber; null leaves a column as it is. `blacklisted` can only be set, never cleared. */
export interface SubscriberUpdates {
  id: number[];
  email: (string | null)[];
  confirmed: (boolean | null)[];
  blacklisted: (boolean | null)[];
  htmlEmail: (boolean | null)[];
  disabled: (boolean | null)[];
  extraData: (string | null)[];
  foreignKey: (string | null)[];
}

export async function updateSubscribers(db: Executor, c: SubscriberUpdates): Promise<void> {
  if (c.id.length === 0) return;
  await db.execute(sql`
    update subscribers s set
      email = coalesce(v.email, s.email),
      confirmed = coalesce(v.confirmed, s.confirmed),
      blacklisted = s.blacklisted or coalesce(v.blacklisted, false),
      html_email = coalesce(v.html_email, s.html_email),
      disabled = coalesce(v.disabled, s.disabled),
      extra_data = coalesce(v.extra_data, s.extra_data),
      foreign_key = coalesce(v.foreign_key, s.foreign_key),
      updated_at = now()
    from unnest(${sqlArray(c.id, 'integer')}, ${sqlArray(c.email, 'text')}, ${sqlArray(c.confirmed, 'boolean')},
      ${sqlArray(c.blacklisted, 'boolean')}, ${sqlArray(c.htmlEmail, 'boolean')}, ${sqlArray(c.disabled, 'boolean')},
      ${sqlArray(c.extraData, 'text')}, ${sqlArray(c.foreignKey, 'text')})
      as v(id, email, confirmed, blacklisted, html_email, disabled, extra_data, foreign_key)
    where s.id = v.id`);
}

/**
 * Blacklist entries for addresses an import row blacklisted (one store, ../shared/api/DECISIONS.md § Resources);
 * existing ones stay.
 */
export async function insertBlacklistEntries(db: Executor, emails: string[], addedBy: number): Promise<void> {
  if (emails.length === 0) return;
  await db.execute(sql`
    insert into blacklist (email, reason, added_by)
    select unnest(${sqlArray(emails, 'text')}), 'Blacklisted by import', ${addedBy}
    on conflict do nothing`);
}

/** Attribute values as parallel columns: the subscriber, the definition and the value of each. */
export interface AttributeValues {
  ids: number[];
  definitions: number[];
  values: (string | null)[];
}

/**
 * Writes attribute values. Those of subscribers this transaction created (`created`), which can have none yet, are a
 * plain insert; the others replace the value a subscriber has for that definition.
 */
export async function writeAttributeValues(db: Executor, rows: AttributeValues, created: boolean): Promise<void> {
  if (rows.ids.length === 0) return;
  const insert = sql`
    insert into subscriber_attribute_values (subscriber_id, definition_id, value)
    select * from unnest(${sqlArray(rows.ids, 'integer')}, ${sqlArray(rows.definitions, 'integer')}, ${sqlArray(rows.values, 'text')})`;
  await db.execute(
    created ? insert : sql`${insert} on conflict (subscriber_id, definition_id) do update set value = excluded.value, updated_at = now()`,
  );
}

/** Subscribes subscribers this transaction created, which are on no list yet: a plain insert. */
export async function subscribeNew(db: Executor, listId: number, subscriberIds: number[]): Promise<void> {
  if (subscriberIds.length === 0) return;
  await db.execute(sql`insert into subscriptions (list_id, subscriber_id) select ${listId}, unnest(${sqlArray(subscriberIds, 'integer')})`);
}

/** Subscribes; existing subscriptions stay. Answers the subscribers newly subscribed. */
export async function subscribe(db: Executor, listId: number, subscriberIds: number[]): Promise<number[]> {
  if (subscriberIds.length === 0) return [];
  return queryRows(
    db,
    sql`insert into subscriptions (list_id, subscriber_id)
        select ${listId}, unnest(${sqlArray(subscriberIds, 'integer')})
        on conflict do nothing
        returning subscriber_id`,
    (row) => int(row, 'subscriber_id'),
  );
}

export async function insertHistory(
  db: Executor,
  subscriberIds: number[],
  details: string[],
  entry: { summary: string; ip: string | null; systemInfo: string | null },
): Promise<void> {
  if (subscriberIds.length === 0) return;
  await db.execute(sql`
    insert into subscriber_history (subscriber_id, detail, summary, ip, system_info)
    select *, ${entry.summary}, ${entry.ip}::text, ${entry.systemInfo}::text
    from unnest(${sqlArray(subscriberIds, 'integer')}, ${sqlArray(details, 'text')})`);
}
