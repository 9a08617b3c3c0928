import { sql } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { bool, int, text, textOrNull, timestamp, type Row } from '../db/row.js';
import type { SubscriberRow } from './subscriber.repository.js';

/*
 * The statements of a sign-up (signup.service.ts). Every outcome — a new address, an unconfirmed one, a confirmed
 * one, a blacklisted one — runs the same two statements here (and the same queue write after them), with empty
 * arrays where an outcome has nothing to write: the answer takes the same time whoever signs up (issue 22).
 */

export interface SignUpLookup {
  /** On the blacklist table (the subscriber's own flag is `subscriber.blacklisted`). */
  readonly barred: boolean;
  readonly subscriber: SubscriberRow | null;
  /** Which of the chosen lists the subscriber is already on. */
  readonly memberOf: ReadonlySet<number>;
}

const toSubscriber = (row: Row): SubscriberRow => ({
  id: int(row, 'id'),
  email: text(row, 'email'),
  uniqueId: text(row, 'unique_id'),
  confirmed: bool(row, 'confirmed'),
  blacklisted: bool(row, 'blacklisted'),
  bounceCount: int(row, 'bounce_count'),
  htmlEmail: bool(row, 'html_email'),
  disabled: bool(row, 'disabled'),
  extraData: textOrNull(row, 'extra_data'),
  foreignKey: textOrNull(row, 'foreign_key'),
  createdAt: timestamp(row, 'created_at'),
  updatedAt: timestamp(row, 'updated_at'),
});

/** One statement: the blacklist, the subscriber with this address (if any) and their memberships of these lists. */
export async function lookUpSignUp(tx: Executor, email: string, listIds: readonly number[]): Promise<SignUpLookup> {
  const [row] = await queryRows(
    tx,
    sql`select exists (select 1 from blacklist b where lower(b.email) = lower(${email})) as barred, s.*,
          array_to_string(array(select m.list_id from subscriptions m
                                where m.subscriber_id = s.id and m.list_id = any(${sqlArray(listIds, 'int')})), ',') as member_of
        from (select 1) as one left join subscribers s on lower(s.email) = lower(${email})`,
    (r) => r,
  );
  const memberOf = text(row!, 'member_of');
  return {
    barred: bool(row!, 'barred'),
    subscriber: row!['id'] === null || row!['id'] === undefined ? null : toSubscriber(row!),
    memberOf: new Set(memberOf ? memberOf.split(',').map(Number) : []),
  };
}

/** What a sign-up writes; any part may be empty. */
export interface SignUpWrite {
  /** The subscriber to create, or null. */
  readonly create: { email: string; uniqueId: string; confirmed: boolean; htmlEmail: boolean } | null;
  /** An existing subscriber this sign-up subscribes (unconfirmed), or null. */
  readonly existingId: number | null;
  /** Attribute values of the subscriber created. */
  readonly values: readonly { definitionId: number; value: string }[];
  /** The lists to subscribe the subscriber (created or existing) to, in the order they are named. */
  readonly listIds: readonly number[];
  readonly createdDetail: string;
  /** Appended to the `Subscribed to "…"` history line: where it happened. */
  readonly where: string;
  readonly ip: string | null;
  readonly systemInfo: string | null;
}

/**
 * One statement: creates the subscriber (unless another writer has stored the address meanwhile: then nothing is
 * written), stores its attribute values, subscribes it (or the existing subscriber) to the lists it is not on yet,
 * and writes the history (`Subscriber created`, `Subscribed to "…" on …` when some list was new). Answers the
 * subscriber created, if any, and whether anyone was written for (created or existing).
 */
export async function writeSignUp(tx: Executor, w: SignUpWrite): Promise<{ created: SubscriberRow | null; reached: boolean }> {
  const c = w.create;
  const rows = await queryRows(
    tx,
    sql`with created as (
          insert into subscribers (email, unique_id, confirmed, html_email)
          select * from unnest(${sqlArray(c ? [c.email] : [], 'text')}, ${sqlArray(c ? [c.uniqueId] : [], 'text')},
                               ${sqlArray(c ? [c.confirmed] : [], 'boolean')}, ${sqlArray(c ? [c.htmlEmail] : [], 'boolean')})
          on conflict (lower(email)) do nothing
          returning *
        ), target as (
          select id from created
          union all
          select id from subscribers where id = any(${sqlArray(w.existingId === null ? [] : [w.existingId], 'int')})
        ), attribute_values as (
          insert into subscriber_attribute_values (subscriber_id, definition_id, value)
          select n.id, v.definition_id, v.value
          from created n, unnest(${sqlArray(
            w.values.map((v) => v.definitionId),
            'int',
          )}, ${sqlArray(
            w.values.map((v) => v.value),
            'text',
          )}) as v(definition_id, value)
          on conflict (subscriber_id, definition_id) do update set value = excluded.value, updated_at = now()
        ), joined as (
          insert into subscriptions (list_id, subscriber_id)
          select l.list_id, t.id from target t, unnest(${sqlArray(w.listIds, 'int')}) as l(list_id)
          on conflict do nothing
          returning list_id, subscriber_id
        ), history as (
          insert into subscriber_history (subscriber_id, ip, summary, detail, system_info)
          select n.id, ${w.ip}, 'Subscriber created', ${w.createdDetail}, ${w.systemInfo} from created n
          union all
          select j.subscriber_id, ${w.ip}, 'Subscribed',
                 'Subscribed to ' || string_agg('"' || l.name || '"', ', ' order by array_position(${sqlArray(w.listIds, 'int')}, l.id))
                   || ' on ' || ${w.where},
                 ${w.systemInfo}
          from joined j join lists l on l.id = j.list_id group by j.subscriber_id
        )
        select (select count(*) from target)::int as reached, created.* from (select 1) as one left join created on true`,
    (r) => r,
  );
  const row = rows[0]!;
  return { created: row['id'] === null || row['id'] === undefined ? null : toSubscriber(row), reached: int(row, 'reached') > 0 };
}
