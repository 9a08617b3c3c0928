import { asc, eq, sql } from 'drizzle-orm';
import { queryRows, type AppDb, type Executor } from '../db/client.js';
import { bool, int, intOrNull, text, textOrNull, type Row } from '../db/row.js';
import { bounceRules } from '../db/schema/index.js';
import type { BounceDecision, BounceMatch, MatchedBy, MatchedSubscriber } from './bounce-decision.js';
import type { ReturnedHeaders } from './dsn.js';

/*
 * The SQL of bounce processing: the active rules; the match; and the one write of what bounce-decision.ts decided,
 * with the receipt that makes a message processed once, under the subscriber's row lock.
 *
 * Why the bounce's shared counts are appended here and folded later (bounce-counts.ts, `fold_bounce_counts` in
 * src/db/routines/040_bounce_counts.sql): every bounce of a campaign would otherwise update the campaign's row, its
 * counters row and the rule's row, and hold their locks through its commit's WAL flush, so bounces would commit one
 * flush at a time (about 300 a second on the development VM). A bounce appends one row to bounce_count_increments
 * instead, as durable as the bounce; the fold adds them to the figures within about a second. Everything per
 * subscriber (bounce count, confirmed, blacklisted, history, blacklist) is written in the bounce's transaction.
 */

export async function activeRules(db: Executor) {
  return db
    .select({ id: bounceRules.id, regex: bounceRules.regex, action: bounceRules.action })
    .from(bounceRules)
    .where(eq(bounceRules.status, 'active'))
    .orderBy(asc(bounceRules.listOrder), asc(bounceRules.id));
}

/** What the bounce says about what was sent. */
export interface BounceEvidence {
  /** The delivery a valid VERP token named (verp.ts). */
  readonly verpDeliveryId: number | null;
  readonly returned: ReturnedHeaders;
  /** The failed address. */
  readonly recipient: string | null;
}

/** What MATCH_SQL answers: the bounce's new id and what it was matched to (all null but the id when nothing). */
interface MatchRow {
  readonly bounceId: number;
  readonly matchedBy: MatchedBy | null;
  readonly deliveryId: number | null;
  readonly campaignId: number | null;
  readonly deliveryStatus: string | null;
  readonly proven: boolean;
  readonly subscriber: MatchedSubscriber | null;
  readonly consecutive: number;
}

const MATCHED_BY: readonly MatchedBy[] = ['verp', 'delivery', 'campaign_subscriber', 'message_id', 'recipient'];

const toMatchRow = (row: Row): MatchRow => {
  const by = textOrNull(row, 'by');
  return {
    bounceId: int(row, 'bounce_id'),
    matchedBy: MATCHED_BY.find((b) => b === by) ?? null,
    deliveryId: intOrNull(row, 'delivery_id'),
    campaignId: intOrNull(row, 'campaign_id'),
    deliveryStatus: textOrNull(row, 'delivery_status'),
    proven: row['proven'] === true,
    // The subscriber's columns are those of an existing row (x joins subscribers): not null when its id is not.
    subscriber:
      row['subscriber_id'] === null
        ? null
        : {
            id: int(row, 'subscriber_id'),
            email: text(row, 'email'),
            confirmed: bool(row, 'confirmed'),
            blacklisted: bool(row, 'blacklisted'),
            bounceCount: int(row, 'bounce_count'),
            listed: bool(row, 'listed'),
          },
    consecutive: int(row, 'consecutive'),
  };
};

/** $1 VERP delivery, $2 delivery header, $3 campaign header, $4 subscriber uid, $5 Message-ID, $6 failed address, $7 walk. */
const MATCH_SQL = `
  with m as (
    select 0 as p, 'verp' as by, d.id as delivery_id, d.campaign_id, d.subscriber_id, d.status, true as proven
    from deliveries d where d.id = $1::bigint
    union all
    select 1, 'delivery', d.id, d.campaign_id, d.subscriber_id, d.status,
           $4::text is not null or coalesce(d.message_id = $5::text, false)
    from deliveries d join subscribers s on s.id = d.subscriber_id
    where d.id = $2::bigint
      and ($3::integer is null or d.campaign_id = $3::integer)
      and ($4::text is null or s.unique_id = $4::text)
    union all
    select 2, 'campaign_subscriber', d.id, c.id, s.id, d.status, true
    from subscribers s join campaigns c on c.id = $3::integer
    left join deliveries d on d.campaign_id = c.id and d.subscriber_id = s.id
    where s.unique_id = $4::text
    union all
    (select 3, 'message_id', id, campaign_id, subscriber_id, status, true from deliveries where message_id = $5::text limit 1)
    union all
    select 4, 'recipient', null, null, id, null, false from subscribers where lower(email) = lower($6::text)
    order by 1 limit 1
  ), x as (
    select m.by, m.delivery_id, m.campaign_id, m.status as delivery_status, m.proven, s.id as subscriber_id, s.email,
           s.confirmed, s.blacklisted, s.bounce_count,
           exists (select 1 from blacklist b where lower(b.email) = lower(s.email)) as listed
    from m join subscribers s on s.id = m.subscriber_id
  )
  select nextval(pg_get_serial_sequence('bounces', 'id')) as bounce_id, x.*,
         case when $7::integer > 0 and x.subscriber_id is not null then (
           select count(*)::integer from (
             select bool_and(d.id = coalesce(x.delivery_id, 0) or exists (
                      select 1 from bounces b where b.delivery_id = d.id and b.kind in ('hard', 'soft', 'unknown')))
                    over (order by d.id desc) as unbroken
             from (select id from deliveries
                   where subscriber_id = x.subscriber_id and (status = 'sent' or id = coalesce(x.delivery_id, 0))
                   order by id desc limit $7::integer) d
           ) run where unbroken)
         else 0 end as consecutive
  from (select 1) one left join x on true`;

/**
 * $1 subscriber as read, $2 confirmed, $3 blacklisted, $4 bounce_count (all as read); $5 key, $6 bounce id, $7 store,
 * $8 status, $9 kind, $10 comment, $11 header, $12 data, $13 campaign, $14 subscriber stored, $15 delivery;
 * $16 counted, $17 subscriber updated, $18 confirmed, $19 blacklisted, $20 changed; $21 subscriber deleted;
 * $22 $23 blacklist emails and reasons; $24 $25 history summaries and details, $26 system info; $27 increment,
 * $28 its campaign, $29 its rule.
 */
const WRITE_SQL = `
  with locked as (
    select id from subscribers
    where id = $1::integer and confirmed = $2::boolean and blacklisted = $3::boolean and bounce_count = $4::integer
    for update
  ), receipt as (
    insert into bounce_receipts (message_id, bounce_id)
    select $5::text, $6::bigint
    where $1::integer is null or exists (select 1 from locked)
    on conflict do nothing
    returning bounce_id
  ), stored as (
    insert into bounces (id, status, kind, comment, header, data, campaign_id, subscriber_id, delivery_id, message_id)
    select $6::bigint, $8::text, $9::text, $10::text, $11::text, $12::text, $13::integer, $14::integer, $15::bigint, $5::text
    from receipt where $7::boolean
  ), updated as (
    update subscribers set
      bounce_count = bounce_count + case when $16::boolean then 1 else 0 end,
      confirmed = $18::boolean,
      blacklisted = $19::boolean,
      updated_at = case when $20::boolean then now() else updated_at end
    where id = $17::integer and exists (select 1 from receipt)
  ), deleted as (
    delete from subscribers where id = $21::integer and exists (select 1 from receipt)
  ), listed as (
    insert into blacklist (email, reason)
    select email, reason from unnest($22::text[], $23::text[]) as b(email, reason)
    where exists (select 1 from receipt)
    on conflict do nothing
  ), noted as (
    insert into subscriber_history (subscriber_id, summary, detail, system_info)
    select $17::integer, summary, detail, $26::text
    from unnest($24::text[], $25::text[]) with ordinality as h(summary, detail, ord)
    where $17::integer is not null and exists (select 1 from receipt)
    order by ord
  ), increment as (
    insert into bounce_count_increments (campaign_id, rule_id)
    select $28::integer, $29::integer
    from receipt where $27::boolean
  )
  select (select count(*)::integer from receipt) as claimed, (select count(*)::integer from locked) as locked`;

/** A match, and the new bounce's id (taken from the bounces sequence now, as the decision's texts name it). */
export interface MatchedBounce {
  readonly bounceId: number;
  readonly match: BounceMatch;
}

/**
 * Matches a bounce to what was sent, in order of certainty: the VERP token's delivery; the returned
 * X-Mailroom-Delivery, trusted only when the campaign and subscriber headers, if present, agree with it; campaign +
 * subscriber unique id (a test send has no delivery); the returned Message-ID equal to a delivery's; the failed
 * address equal to a subscriber's (campaign unknown). `proven` (issue 23): the match carries something that cannot be
 * guessed — the VERP token, the subscriber's 128-bit uid, or the delivery's full Message-ID; a delivery number is
 * sequential, so X-Mailroom-Delivery alone (with at most the campaign's number) is not proven and never acts. `walk` > 0: also counts the consecutive bounces over the
 * subscriber's latest `walk` deliveries, newest first, while each has a bounce (hard, soft or unknown; several
 * bounces of one delivery count once; this one's delivery counts as bounced; deliveries not sent yet are skipped).
 *
 * One statement, no lock: the subscriber's row is locked by writeBounce, which writes only if the row is still as
 * read here (see there). Two round trips a bounce instead of a transaction of five: bounces arrive by the thousand.
 */
export async function matchBounce(database: AppDb, e: BounceEvidence, walk: number): Promise<MatchedBounce> {
  const h = e.returned;
  const [row] = await database.prepared(
    'mailroom_match_bounce',
    MATCH_SQL,
    [e.verpDeliveryId, h.deliveryId, h.campaignId, h.subscriberUid, h.messageId, e.recipient, walk],
    toMatchRow,
  );
  const r = row!;
  const subscriber = r.subscriber;
  return {
    bounceId: r.bounceId,
    match: {
      matchedBy: r.matchedBy,
      proven: r.proven,
      deliveryId: r.deliveryId,
      campaignId: r.campaignId,
      subscriber,
      headersIn: h.foundIn,
      failedAddressMatches: e.recipient === null || subscriber === null ? null : e.recipient.toLowerCase() === subscriber.email.toLowerCase(),
      deliverySent: r.deliveryStatus === 'sent',
      consecutive: r.consecutive,
    },
  };
}

/** What was stored for a message processed before (`kept` null: a rule deleted its bounce). */
export interface Receipt {
  readonly bounceId: number;
  readonly kept: { status: string | null; kind: string | null; campaignId: number | null; subscriberId: number | null } | null;
}

export async function receiptOf(db: Executor, key: string): Promise<Receipt> {
  const [receipt] = await queryRows(
    db,
    sql`select r.bounce_id, b.id as kept, b.status, b.kind, b.campaign_id, b.subscriber_id
        from bounce_receipts r left join bounces b on b.id = r.bounce_id
        where r.message_id = ${key}`,
    (row): Receipt => ({
      bounceId: int(row, 'bounce_id'),
      kept:
        row['kept'] === null
          ? null
          : {
              status: textOrNull(row, 'status'),
              kind: textOrNull(row, 'kind'),
              campaignId: intOrNull(row, 'campaign_id'),
              subscriberId: intOrNull(row, 'subscriber_id'),
            },
    }),
  );
  return receipt!;
}

/** The stored texts of the bounce (NUL characters already removed). */
export interface BounceTexts {
  readonly key: string;
  readonly kind: string | null;
  readonly comment: string;
  readonly header: string;
  readonly data: string;
}

/**
 * Writes everything a decision asks for in one statement, atomically: the receipt (a message is processed once),
 * the bounce, the subscriber, the blacklist, history and the count increment. The subscriber's row is locked
 * FOR UPDATE first and everything is written only if it is still as matchBounce read it (confirmed, blacklisted,
 * bounce count — every bounce that could change the decision changes one of them); answers `stale` otherwise, and
 * nothing is written: the caller matches and decides again. `duplicate`: the message was processed before.
 * `tx`: the statement runs in that transaction (the caller writes a webhook event with it) instead of as the prepared
 * statement on the database.
 */
export async function writeBounce(
  database: AppDb,
  bounceId: number,
  texts: BounceTexts,
  m: BounceMatch,
  d: BounceDecision,
  tx?: Executor,
): Promise<'written' | 'duplicate' | 'stale'> {
  const was = m.subscriber;
  const sub = d.subscriber;
  const inc = d.increment;
  const values = [
    was?.id ?? null,
    was?.confirmed ?? false,
    was?.blacklisted ?? false,
    was?.bounceCount ?? 0,
    texts.key,
    bounceId,
    d.store,
    d.status,
    texts.kind,
    texts.comment,
    texts.header,
    texts.data,
    d.campaignId,
    d.subscriberId,
    d.deliveryId,
    d.counted,
    sub?.id ?? null,
    sub?.confirmed ?? false,
    sub?.blacklisted ?? false,
    sub?.changed ?? false,
    d.deleteSubscriber,
    d.blacklist.map((b) => b.email),
    d.blacklist.map((b) => b.reason),
    d.history.map((x) => x.summary),
    d.history.map((x) => x.detail),
    d.systemInfo,
    inc !== null,
    inc?.campaignId ?? null,
    inc?.ruleId ?? null,
  ];
  const toRow = (r: Row) => ({ claimed: int(r, 'claimed'), locked: int(r, 'locked') });
  const [row] = tx
    ? await queryRows(tx, positional(WRITE_SQL, values), toRow)
    : await database.prepared('mailroom_write_bounce', WRITE_SQL, values, toRow);
  if (row!.claimed > 0) return 'written';
  return was !== null && row!.locked === 0 ? 'stale' : 'duplicate';
}

/** A statement written with `$n` placeholders as a Drizzle query, each `$n` the n-th value as a parameter. */
function positional(text: string, values: readonly unknown[]) {
  const parts = text.split(/\$(\d+)/);
  const query = sql.empty();
  parts.forEach((part, i) => query.append(i % 2 === 0 ? sql.raw(part) : sql`${sql.param(values[Number(part) - 1])}`));
  return query;
}

/**
 * Adds every pending bounce count increment to the campaigns', their counters' and the rules' figures, in one
 * transaction (`fold_bounce_counts`, src/db/routines/040_bounce_counts.sql); answers how many it took. Safe to call
 * from several processes at once: each increment is added once.
 */
export async function foldBounceCounts(db: Executor): Promise<number> {
  const [taken] = await queryRows(db, sql`select fold_bounce_counts() as taken`, (row) => intOrNull(row, 'taken'));
  return taken ?? 0;
}
