import { asc, eq, sql } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { bounceRules } from '../db/schema/index.js';
import type { BounceDecision, BounceMatch, MatchedBy } from './bounce-decision.js';
import type { ReturnedHeaders } from './dsn.js';

/*
 * The SQL of bounce processing: the active rules; in one transaction, the match (with the subscriber's row locked),
 * the receipt that makes a message processed once, and the one write of what bounce-decision.ts decided.
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

interface MatchRow {
  by: MatchedBy;
  delivery_id: string | number | null;
  campaign_id: number | null;
  delivery_status: string | null;
  subscriber_id: number;
  email: string;
  confirmed: boolean;
  blacklisted: boolean;
  listed: boolean;
}

const nullableId = (v: string | number | null) => (v === null ? null : Number(v));

/**
 * Matches a bounce to what was sent and locks the subscriber's row until the transaction ends, in order of
 * certainty: the VERP token's delivery; the returned X-Mailroom-Delivery, trusted only when the campaign and
 * subscriber headers, if present, agree with it; campaign + subscriber unique id (a test send has no delivery); the
 * returned Message-ID equal to a delivery's; the failed address equal to a subscriber's (campaign unknown).
 * `walk` > 0: also counts the consecutive bounces over the subscriber's latest `walk` deliveries, newest first,
 * while each has a bounce (hard, soft or unknown; several bounces of one delivery count once; this one's delivery
 * counts as bounced; deliveries not sent yet are skipped). Counted after the lock, in a statement of its own, so a
 * bounce of the same subscriber committed meanwhile is seen.
 */
export async function matchBounce(tx: Executor, e: BounceEvidence, walk: number): Promise<BounceMatch> {
  const h = e.returned;
  const [row] = await queryRows<MatchRow>(
    tx,
    sql`with m as (
          select 0 as p, 'verp' as by, d.id as delivery_id, d.campaign_id, d.subscriber_id, d.status
          from deliveries d where d.id = ${e.verpDeliveryId}::bigint
          union all
          select 1, 'delivery', d.id, d.campaign_id, d.subscriber_id, d.status
          from deliveries d join subscribers s on s.id = d.subscriber_id
          where d.id = ${h.deliveryId}::bigint
            and (${h.campaignId}::integer is null or d.campaign_id = ${h.campaignId}::integer)
            and (${h.subscriberUid}::text is null or s.unique_id = ${h.subscriberUid}::text)
          union all
          select 2, 'campaign_subscriber', d.id, c.id, s.id, d.status
          from subscribers s join campaigns c on c.id = ${h.campaignId}::integer
          left join deliveries d on d.campaign_id = c.id and d.subscriber_id = s.id
          where s.unique_id = ${h.subscriberUid}::text
          union all
          (select 3, 'message_id', id, campaign_id, subscriber_id, status from deliveries where message_id = ${h.messageId}::text limit 1)
          union all
          select 4, 'recipient', null, null, id, null from subscribers where lower(email) = lower(${e.recipient}::text)
          order by 1 limit 1
        )
        select m.by, m.delivery_id, m.campaign_id, m.status as delivery_status, s.id as subscriber_id, s.email,
               s.confirmed, s.blacklisted, exists (select 1 from blacklist b where lower(b.email) = lower(s.email)) as listed
        from m join subscribers s on s.id = m.subscriber_id
        for update of s`,
  );
  if (!row) {
    return { matchedBy: null, deliveryId: null, campaignId: null, subscriber: null, headersIn: h.foundIn, failedAddressMatches: null, deliverySent: false, consecutive: 0 };
  }
  const deliveryId = nullableId(row.delivery_id);
  let consecutive = 0;
  if (walk > 0) {
    const [n] = await queryRows<{ n: number }>(
      tx,
      sql`select count(*)::integer as n from (
            select bool_and(d.id = ${deliveryId ?? 0}::bigint or exists (
                     select 1 from bounces x where x.delivery_id = d.id and x.kind in ('hard', 'soft', 'unknown')))
                   over (order by d.id desc) as unbroken
            from (select id from deliveries
                  where subscriber_id = ${row.subscriber_id}::integer and (status = 'sent' or id = ${deliveryId ?? 0}::bigint)
                  order by id desc limit ${walk}::integer) d
          ) walk
          where unbroken`,
    );
    consecutive = Number(n?.n ?? 0);
  }
  return {
    matchedBy: row.by,
    deliveryId,
    campaignId: row.campaign_id === null ? null : Number(row.campaign_id),
    subscriber: { id: Number(row.subscriber_id), email: row.email, confirmed: row.confirmed, blacklisted: row.blacklisted, listed: row.listed },
    headersIn: h.foundIn,
    failedAddressMatches: e.recipient === null ? null : e.recipient.toLowerCase() === row.email.toLowerCase(),
    deliverySent: row.delivery_status === 'sent',
    consecutive,
  };
}

/** What was stored for a message processed before (`kept` null: a rule deleted its bounce). */
export interface Receipt {
  readonly bounceId: number;
  readonly duplicate: boolean;
  readonly kept: { status: string; kind: string | null; campaignId: number | null; subscriberId: number | null } | null;
}

/** Claims the bounce message's key: a new bounce id, or what was stored when it was processed before. */
export async function claimReceipt(tx: Executor, key: string): Promise<Receipt> {
  const [claimed] = await queryRows<{ bounce_id: string | number }>(
    tx,
    sql`insert into bounce_receipts (message_id, bounce_id)
        values (${key}, nextval(pg_get_serial_sequence('bounces', 'id')))
        on conflict do nothing
        returning bounce_id`,
  );
  if (claimed) return { bounceId: Number(claimed.bounce_id), duplicate: false, kept: null };
  const [row] = await queryRows<{ bounce_id: string | number; kept: string | number | null; status: string; kind: string | null; campaign_id: number | null; subscriber_id: number | null }>(
    tx,
    sql`select r.bounce_id, b.id as kept, b.status, b.kind, b.campaign_id, b.subscriber_id
        from bounce_receipts r left join bounces b on b.id = r.bounce_id
        where r.message_id = ${key}`,
  );
  return {
    bounceId: Number(row!.bounce_id),
    duplicate: true,
    kept: row!.kept === null ? null : { status: row!.status, kind: row!.kind, campaignId: row!.campaign_id, subscriberId: row!.subscriber_id },
  };
}

/** The stored texts of the bounce (NUL characters already removed). */
export interface BounceTexts {
  readonly key: string;
  readonly kind: string | null;
  readonly comment: string;
  readonly header: string;
  readonly data: string;
}

/** Writes everything a decision asks for in one statement (inside the match's transaction). */
export async function writeBounce(tx: Executor, bounceId: number, texts: BounceTexts, d: BounceDecision): Promise<void> {
  const sub = d.subscriber;
  const inc = d.increment;
  await tx.execute(sql`
    with stored as (
      insert into bounces (id, status, kind, comment, header, data, campaign_id, subscriber_id, delivery_id, message_id)
      select ${bounceId}::bigint, ${d.status}, ${texts.kind}::text, ${texts.comment}, ${texts.header}, ${texts.data},
             ${d.campaignId}::integer, ${d.subscriberId}::integer, ${d.deliveryId}::bigint, ${texts.key}
      where ${d.store}::boolean
    ), updated as (
      update subscribers set
        bounce_count = bounce_count + ${d.counted ? 1 : 0}::integer,
        confirmed = ${sub?.confirmed ?? false}::boolean,
        blacklisted = ${sub?.blacklisted ?? false}::boolean,
        updated_at = case when ${sub?.changed ?? false}::boolean then now() else updated_at end
      where id = ${sub?.id ?? null}::integer
    ), deleted as (
      delete from subscribers where id = ${d.deleteSubscriber}::integer
    ), listed as (
      insert into blacklist (email, reason)
      select email, reason from unnest(${sqlArray(d.blacklist.map((b) => b.email), 'text')}, ${sqlArray(d.blacklist.map((b) => b.reason), 'text')}) as b(email, reason)
      on conflict do nothing
    ), noted as (
      insert into subscriber_history (subscriber_id, summary, detail, system_info)
      select ${sub?.id ?? null}::integer, summary, detail, ${d.systemInfo}
      from unnest(${sqlArray(d.history.map((x) => x.summary), 'text')}, ${sqlArray(d.history.map((x) => x.detail), 'text')}) with ordinality as h(summary, detail, ord)
      where ${sub?.id ?? null}::integer is not null
      order by ord
    ), increment as (
      insert into bounce_count_increments (campaign_id, rule_id)
      select ${inc?.campaignId ?? null}::integer, ${inc?.ruleId ?? null}::integer
      where ${inc !== null}::boolean
    )
    select 1`);
}

/**
 * Adds every pending bounce count increment to the campaigns', their counters' and the rules' figures, in one
 * transaction (`fold_bounce_counts`, src/db/routines/040_bounce_counts.sql); answers how many it took. Safe to call
 * from several processes at once: each increment is added once.
 */
export async function foldBounceCounts(db: Executor): Promise<number> {
  const [row] = await queryRows<{ taken: number }>(db, sql`select fold_bounce_counts() as taken`);
  return Number(row?.taken ?? 0);
}
