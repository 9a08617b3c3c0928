import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { bounceReceipts, bounceRules, bounces, campaigns, deliveries, subscribers } from '../db/schema/index.js';

/* The SQL of bounce processing: matching a bounce to what was sent, storing it, and its effects. */

export interface DeliveryMatch {
  readonly deliveryId: number | null;
  readonly campaignId: number;
  readonly subscriberId: number;
}

/** A delivery by id, with its subscriber's unique id so the caller can check the returned headers agree. */
export async function deliveryById(db: Executor, id: number) {
  const [row] = await db
    .select({ deliveryId: deliveries.id, campaignId: deliveries.campaignId, subscriberId: deliveries.subscriberId, uid: subscribers.uniqueId })
    .from(deliveries)
    .innerJoin(subscribers, eq(subscribers.id, deliveries.subscriberId))
    .where(eq(deliveries.id, id));
  return row;
}

/** Campaign and subscriber (by unique id), both existing, and their delivery if there is one (a test send has none). */
export async function byCampaignAndUid(db: Executor, campaignId: number, uid: string): Promise<DeliveryMatch | undefined> {
  const [row] = await db
    .select({ deliveryId: deliveries.id, campaignId: campaigns.id, subscriberId: subscribers.id })
    .from(subscribers)
    .innerJoin(campaigns, eq(campaigns.id, campaignId))
    .leftJoin(deliveries, and(eq(deliveries.campaignId, campaigns.id), eq(deliveries.subscriberId, subscribers.id)))
    .where(eq(subscribers.uniqueId, uid));
  return row;
}

/** The delivery whose mail carried this Message-ID (deliveries_message_id_idx). */
export async function deliveryByMessageId(db: Executor, messageId: string): Promise<DeliveryMatch | undefined> {
  const [row] = await db
    .select({ deliveryId: deliveries.id, campaignId: deliveries.campaignId, subscriberId: deliveries.subscriberId })
    .from(deliveries)
    .where(eq(deliveries.messageId, messageId))
    .limit(1);
  return row;
}

export async function subscriberByEmail(db: Executor, email: string): Promise<number | undefined> {
  const [row] = await db
    .select({ id: subscribers.id })
    .from(subscribers)
    .where(sql`lower(${subscribers.email}) = lower(${email})`);
  return row?.id;
}

export async function activeRules(db: Executor) {
  return db
    .select({ id: bounceRules.id, regex: bounceRules.regex, action: bounceRules.action })
    .from(bounceRules)
    .where(eq(bounceRules.status, 'active'))
    .orderBy(asc(bounceRules.listOrder), asc(bounceRules.id));
}

/** A boolean parameter, typed: a bare `$n` in a select list would otherwise be read as text. */
const bool = (value: boolean) => sql`${value}::boolean`;

export interface BounceRecord {
  readonly key: string;
  readonly status: string;
  readonly kind: string | null;
  readonly comment: string;
  readonly header: string;
  readonly data: string;
  readonly campaignId: number | null;
  readonly subscriberId: number | null;
  readonly deliveryId: number | null;
  /** Adds to the subscriber's and the campaign's bounce counts. */
  readonly counted: boolean;
  /** Blacklist at once (a hard bounce or a complaint), unless a rule took the matter in hand. */
  readonly immediate: boolean;
  /** Apply the automatic actions at all (false when a rule declared the message no bounce). */
  readonly automatic: boolean;
  readonly unconfirmThreshold: number;
  readonly blacklistThreshold: number;
  readonly rule: {
    readonly id: number;
    readonly blacklistSubscriber: boolean;
    /** The failed address to blacklist when no subscriber matched (`blacklistemail…`). */
    readonly blacklistAddress: string | null;
    readonly unconfirm: boolean;
    readonly confirm: boolean;
    readonly deleteSubscriber: boolean;
    readonly deleteBounce: boolean;
  } | null;
  /** Texts; `{id}` becomes the bounce id and `{n}` the consecutive bounces. */
  readonly text: {
    readonly firstSummary: string;
    readonly description: string;
    readonly suffix: string;
    readonly about: string;
    readonly ruleReason: string;
    readonly thresholdReason: string;
    readonly systemInfo: string;
  };
}

export interface RecordedBounce {
  readonly bounceId: number;
  readonly subscriberFound: boolean;
  readonly ruleBlacklisted: boolean;
  readonly ruleUnconfirmed: boolean;
  readonly ruleConfirmed: boolean;
  readonly subscriberDeleted: boolean;
  readonly autoBlacklisted: boolean;
  readonly autoUnconfirmed: boolean;
  /** Consecutive bounces, this one included (0 when the thresholds did not apply). */
  readonly consecutive: number;
}

/**
 * Records one bounce and all its effects in ONE statement (so one round trip and one implicit transaction): the
 * receipt, the bounce (not stored when a rule deletes it), the rule's action, the count, the automatic blacklisting
 * or unconfirming, history, the campaign's counts and the rule's. Bounces arrive by the thousand and each used to
 * cost nine round trips; data-modifying CTEs all run to completion whether or not the final SELECT reads them.
 * The decisions in TypeScript (which rule, counted or not) come in as flags; what depends on the subscriber's
 * current state (confirmed, blacklisted, consecutive bounces) is decided here, on the row locked FOR UPDATE.
 * Answers undefined when the message was processed before (its receipt exists): nothing was done.
 *
 * Consecutive bounces: the subscriber's latest sent deliveries newest first, counted while each has a bounce (hard,
 * soft or unknown; several bounces of one delivery count once), this bounce's delivery counting as bounced (the
 * new row is not visible to the statement that inserts it). Deliveries not sent yet are skipped.
 */
export async function recordBounce(db: Executor, r: BounceRecord): Promise<RecordedBounce | undefined> {
  const rule = r.rule;
  const rBl = rule?.blacklistSubscriber ?? false;
  const rUnc = rule?.unconfirm ?? false;
  const rConf = rule?.confirm ?? false;
  const rDelSub = rule?.deleteSubscriber ?? false;
  const bt = r.blacklistThreshold;
  const ut = r.unconfirmThreshold;
  const walkApplies = r.automatic && r.counted && !r.immediate && (bt > 0 || ut > 0);
  const t = r.text;
  const [row] = await queryRows<{
    bounce_id: string | number;
    subscriber_found: boolean;
    rule_blacklisted: boolean;
    rule_unconfirmed: boolean;
    rule_confirmed: boolean;
    subscriber_deleted: boolean;
    auto_blacklisted: boolean;
    auto_unconfirmed: boolean;
    n: number | null;
  }>(
    db,
    sql`with
      seen as (
        insert into bounce_receipts (message_id, bounce_id)
        values (${r.key}, nextval(pg_get_serial_sequence('bounces', 'id')))
        on conflict do nothing
        returning bounce_id as id),
      b as (
        insert into bounces (id, status, kind, comment, header, data, campaign_id, subscriber_id, delivery_id, message_id)
        select id, ${r.status}, ${r.kind}, ${r.comment}, ${r.header}, ${r.data}, ${r.campaignId},
               ${rDelSub ? null : r.subscriberId}, ${r.deliveryId}, ${r.key}
        from seen where not ${bool(rule?.deleteBounce ?? false)}
        on conflict (message_id) do nothing
        returning id),
      sub as (
        select s.id, s.email, s.confirmed, s.blacklisted, seen.id as bounce_id
        from subscribers s cross join seen
        where s.id = ${r.subscriberId ?? 0}
        for update of s),
      walk as (
        select count(*)::int as n from (
          select bool_and(d.id = ${r.deliveryId ?? 0} or exists (
                   select 1 from bounces x where x.delivery_id = d.id and x.kind in ('hard', 'soft', 'unknown')))
                 over (order by d.id desc) as unbroken
          from (select id from deliveries
                where subscriber_id = ${r.subscriberId ?? 0} and (status = 'sent' or id = ${r.deliveryId ?? 0})
                order by id desc limit ${Math.max(bt, ut, 1)}) d
        ) w
        where unbroken and ${bool(walkApplies)}),
      decide as (
        select sub.*, walk.n,
               ${bool(rBl)} as rule_blacklist,
               ${bool(rUnc)} and sub.confirmed as rule_unconfirm,
               ${bool(rConf)} and not sub.confirmed as rule_confirm,
               ${bool(r.automatic)} and not sub.blacklisted and not ${bool(rBl)}
                 and (${bool(r.immediate)} or (${bt}::int > 0 and walk.n >= ${bt}::int)) as auto_blacklist,
               ${bool(r.automatic)} and not sub.blacklisted and not ${bool(rBl)} and not ${bool(r.immediate)} and sub.confirmed
                 and not ${bool(rUnc)} and ${ut}::int > 0 and walk.n >= ${ut}::int and not (${bt}::int > 0 and walk.n >= ${bt}::int) as auto_unconfirm
        from sub cross join walk
        where not ${bool(rDelSub)}),
      texts as (
        select d.*,
               replace(${t.ruleReason}, '{id}', d.bounce_id::text) as rule_reason,
               replace(replace(case when ${bool(r.immediate)} then ${t.about} else ${t.thresholdReason} end,
                               '{id}', d.bounce_id::text), '{n}', d.n::text) as auto_reason
        from decide d),
      upd as (
        update subscribers s set
          bounce_count = s.bounce_count + ${r.counted ? 1 : 0},
          confirmed = case when x.rule_confirm then true when x.rule_unconfirm or x.auto_unconfirm then false else s.confirmed end,
          blacklisted = s.blacklisted or x.rule_blacklist or x.auto_blacklist,
          updated_at = case when x.rule_confirm or x.rule_unconfirm or x.auto_unconfirm
                              or ((x.rule_blacklist or x.auto_blacklist) and not s.blacklisted) then now() else s.updated_at end
        from texts x where s.id = x.id
        returning s.id),
      ${
        // Only when asked: a DELETE on subscribers fires its statement-level triggers even when it deletes nothing.
        rDelSub
          ? sql`del as (delete from subscribers s using seen where s.id = ${r.subscriberId ?? 0} returning s.id),`
          : sql`del as (select null::int as id where false),`
      }
      bl as (
        insert into blacklist (email, reason)
        select x.email, case when x.rule_blacklist then x.rule_reason else x.auto_reason end
        from texts x where x.rule_blacklist or x.auto_blacklist
        union all
        select cast(${rule?.blacklistAddress ?? null} as text), replace(${t.ruleReason}, '{id}', seen.id::text)
        from seen where cast(${rule?.blacklistAddress ?? null} as text) is not null
        on conflict do nothing
        returning email),
      hist as (
        insert into subscriber_history (subscriber_id, summary, detail, system_info)
        select x.id, h.summary, h.detail, ${t.systemInfo}
        from texts x cross join lateral (values
          (1, ${t.firstSummary}, ${t.description} || replace(${t.suffix}, '{id}', x.bounce_id::text), true),
          (2, 'Blacklisted', x.rule_reason, x.rule_blacklist and (not x.blacklisted or exists (select 1 from bl))),
          (3, 'Unconfirmed', x.rule_reason, x.rule_unconfirm),
          (4, 'Confirmed', x.rule_reason, x.rule_confirm),
          (5, 'Blacklisted', x.auto_reason, x.auto_blacklist),
          (6, 'Auto unconfirmed', x.auto_reason, x.auto_unconfirm)
        ) as h(ord, summary, detail, wanted)
        where h.wanted
        order by h.ord
        returning id),
      camp as (
        update campaigns c set bounce_count = c.bounce_count + 1
        from seen where c.id = ${r.campaignId ?? 0} and ${bool(r.counted)}
        returning c.id),
      counters as (
        insert into campaign_counters (campaign_id, bounces) select id, 1 from camp
        on conflict (campaign_id) do update set bounces = campaign_counters.bounces + 1, updated_at = now()
        returning campaign_id),
      rule_count as (
        update bounce_rules r set match_count = r.match_count + 1 from seen where r.id = ${rule?.id ?? 0} returning r.id)
    select seen.id as bounce_id,
           x.id is not null as subscriber_found,
           case when x.id is not null then x.rule_blacklist and (not x.blacklisted or exists (select 1 from bl))
                else exists (select 1 from bl) end as rule_blacklisted,
           coalesce(x.rule_unconfirm, false) as rule_unconfirmed,
           coalesce(x.rule_confirm, false) as rule_confirmed,
           exists (select 1 from del) as subscriber_deleted,
           coalesce(x.auto_blacklist, false) as auto_blacklisted,
           coalesce(x.auto_unconfirm, false) as auto_unconfirmed,
           x.n
    from seen left join texts x on true`,
  );
  if (!row) return undefined;
  return {
    bounceId: Number(row.bounce_id),
    subscriberFound: row.subscriber_found,
    ruleBlacklisted: row.rule_blacklisted,
    ruleUnconfirmed: row.rule_unconfirmed,
    ruleConfirmed: row.rule_confirmed,
    subscriberDeleted: row.subscriber_deleted,
    autoBlacklisted: row.auto_blacklisted,
    autoUnconfirmed: row.auto_unconfirmed,
    consecutive: row.n ?? 0,
  };
}

/** What was stored for a message processed before: its bounce id, and the bounce unless a rule deleted it. */
export async function bounceByKey(db: Executor, key: string) {
  const [row] = await db
    .select({
      id: bounceReceipts.bounceId,
      status: bounces.status,
      kind: bounces.kind,
      campaignId: bounces.campaignId,
      subscriberId: bounces.subscriberId,
      stored: bounces.id,
    })
    .from(bounceReceipts)
    .leftJoin(bounces, eq(bounces.id, bounceReceipts.bounceId))
    .where(eq(bounceReceipts.messageId, key));
  return row;
}

