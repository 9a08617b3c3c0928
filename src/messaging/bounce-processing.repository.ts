import { asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { bounceRules } from '../db/schema/index.js';
import type { ReturnedHeaders } from './dsn.js';

/* The SQL of bounce processing: the active rules, and the one call that matches, stores and acts. */

export async function activeRules(db: Executor) {
  return db
    .select({ id: bounceRules.id, regex: bounceRules.regex, action: bounceRules.action })
    .from(bounceRules)
    .where(eq(bounceRules.status, 'active'))
    .orderBy(asc(bounceRules.listOrder), asc(bounceRules.id));
}

export interface BounceRecord {
  /** The bounce message's Message-ID (or digest): what makes it processed once. */
  readonly key: string;
  readonly kind: string | null;
  readonly comment: string;
  readonly header: string;
  readonly data: string;
  readonly returned: ReturnedHeaders;
  /** The failed address. */
  readonly recipient: string | null;
  /** Adds to the subscriber's and the campaign's bounce counts. */
  readonly counted: boolean;
  /** Blacklist at once (a hard bounce or a complaint). */
  readonly immediate: boolean;
  /** Apply the automatic actions at all (false when a rule declared the message no bounce). */
  readonly automatic: boolean;
  readonly unconfirmThreshold: number;
  readonly blacklistThreshold: number;
  readonly rule: {
    readonly id: number;
    /** Blacklist the subscriber's address. */
    readonly blacklist: boolean;
    /** … or, when no subscriber matched, the failed address (`blacklistemail…`). */
    readonly blacklistRecipient: boolean;
    readonly unconfirm: boolean;
    readonly confirm: boolean;
    readonly deleteSubscriber: boolean;
    readonly deleteBounce: boolean;
  } | null;
  /** Texts; `{id}` becomes the bounce id, `{campaign}` "campaign <id>" or "no campaign", `{n}` the consecutive bounces. */
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
  readonly duplicate: boolean;
  readonly bounceId: number;
  readonly matchedBy: 'delivery' | 'campaign_subscriber' | 'message_id' | 'recipient' | null;
  readonly status: string;
  readonly kind: string | null;
  readonly campaignId: number | null;
  readonly subscriberId: number | null;
  /** The subscriber exists (and was not deleted by the rule). */
  readonly subscriberFound: boolean;
  readonly subscriberDeleted: boolean;
  readonly ruleBlacklisted: boolean;
  readonly ruleUnconfirmed: boolean;
  readonly ruleConfirmed: boolean;
  readonly autoBlacklisted: boolean;
  readonly autoUnconfirmed: boolean;
  /** Consecutive bounces, this one included (0 when the thresholds were not looked at). */
  readonly consecutive: number;
}

/**
 * Matches, stores and acts in one call of `record_bounce` (src/db/routines/040_record_bounce.sql): one round trip,
 * one transaction, plans kept by the session.
 */
export async function recordBounce(db: Executor, r: BounceRecord): Promise<RecordedBounce> {
  const rule = r.rule;
  const payload = {
    key: r.key,
    kind: r.kind,
    comment: r.comment,
    header: r.header,
    data: r.data,
    h_delivery_id: r.returned.deliveryId,
    h_campaign_id: r.returned.campaignId,
    h_subscriber_uid: r.returned.subscriberUid,
    h_message_id: r.returned.messageId,
    recipient: r.recipient,
    counted: r.counted,
    immediate: r.immediate,
    automatic: r.automatic,
    unconfirm_threshold: r.unconfirmThreshold,
    blacklist_threshold: r.blacklistThreshold,
    rule_id: rule?.id ?? null,
    rule_blacklist: rule?.blacklist ?? false,
    rule_blacklist_recipient: rule?.blacklistRecipient ?? false,
    rule_unconfirm: rule?.unconfirm ?? false,
    rule_confirm: rule?.confirm ?? false,
    rule_delete_subscriber: rule?.deleteSubscriber ?? false,
    rule_delete_bounce: rule?.deleteBounce ?? false,
    first_summary: r.text.firstSummary,
    description: r.text.description,
    suffix: r.text.suffix,
    about: r.text.about,
    rule_reason: r.text.ruleReason,
    threshold_reason: r.text.thresholdReason,
    system_info: r.text.systemInfo,
  };
  const [row] = await queryRows<{ result: Record<string, unknown> | string }>(
    db,
    sql`select record_bounce(${JSON.stringify(payload)}::jsonb) as result`,
  );
  // node-postgres parses jsonb; PGlite may hand it over as text.
  const d = (typeof row!.result === 'string' ? JSON.parse(row!.result) : row!.result) as Record<string, unknown>;
  const id = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    duplicate: d.duplicate === true,
    bounceId: Number(d.bounce_id),
    matchedBy: (d.matched_by ?? null) as RecordedBounce['matchedBy'],
    status: String(d.status),
    kind: (d.kind ?? null) as string | null,
    campaignId: id(d.campaign_id),
    subscriberId: id(d.subscriber_id),
    subscriberFound: d.subscriber_found === true,
    subscriberDeleted: d.subscriber_deleted === true,
    ruleBlacklisted: d.rule_blacklisted === true,
    ruleUnconfirmed: d.rule_unconfirmed === true,
    ruleConfirmed: d.rule_confirmed === true,
    autoBlacklisted: d.auto_blacklisted === true,
    autoUnconfirmed: d.auto_unconfirmed === true,
    consecutive: Number(d.consecutive ?? 0),
  };
}

/**
 * Adds every pending bounce count increment to the campaigns', their counters' and the rules' figures, in one
 * transaction (`fold_bounce_counts`, src/db/routines/040_record_bounce.sql); answers how many it took. Safe to call
 * from several processes at once: each increment is added once.
 */
export async function foldBounceCounts(db: Executor): Promise<number> {
  const [row] = await queryRows<{ taken: number }>(db, sql`select fold_bounce_counts() as taken`);
  return Number(row?.taken ?? 0);
}
