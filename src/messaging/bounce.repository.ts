import { and, asc, count, desc, eq, gt, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { bounces, campaigns, subscribers } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import type { Bounce, BounceDetail, CampaignBounces, SubscriberBounces } from './bounce.schemas.js';

const bounceColumns = {
  id: bounces.id,
  status: bounces.status,
  receivedAt: bounces.receivedAt,
  campaignId: bounces.campaignId,
  subject: campaigns.subject,
  subscriberId: bounces.subscriberId,
  email: subscribers.email,
  comment: bounces.comment,
};

export interface BounceFilter {
  status?: string;
  subscriberId?: number;
  /** One campaign's bounces (its report, tracking/campaign-stats.service.ts). */
  campaignId?: number;
}

/**
 * A page of bounces by id, with the campaign subject and subscriber address joined in (one query). Each filter has
 * its index that ends in the id (bounces_status_idx, bounces_subscriber_id_idx, bounces_campaign_id_idx), so deep
 * pages stay cheap.
 */
export async function listBounces(db: Executor, by: BounceFilter, afterId: number, limit: number) {
  const filter: SQL | undefined = and(
    by.status === undefined ? undefined : eq(bounces.status, by.status),
    by.subscriberId === undefined ? undefined : eq(bounces.subscriberId, by.subscriberId),
    by.campaignId === undefined ? undefined : eq(bounces.campaignId, by.campaignId),
  );
  const rows = await db
    .select(bounceColumns)
    .from(bounces)
    .leftJoin(campaigns, eq(campaigns.id, bounces.campaignId))
    .leftJoin(subscribers, eq(subscribers.id, bounces.subscriberId))
    .where(and(filter, gt(bounces.id, afterId)))
    .orderBy(asc(bounces.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(bounces).where(filter);
  return { items: rows.map(toBounce), total: total?.n ?? 0 };
}

type BounceRow = { [K in keyof typeof bounceColumns]: (typeof bounceColumns)[K]['_']['data'] | null } & { id: number };

function toBounce(r: BounceRow): Bounce {
  return {
    id: r.id,
    status: r.status,
    date: toAtom(r.receivedAt),
    message_id: r.campaignId,
    message_subject: r.subject,
    subscriber_id: r.subscriberId,
    subscriber_email: r.email,
    comment: r.comment,
  };
}

/** One bounce with its raw header and body, each cut to `max` characters in SQL so a huge message is never read whole. */
export async function findBounce(db: Executor, id: number, max: number): Promise<BounceDetail | null> {
  const [row] = await db
    .select({
      ...bounceColumns,
      header: sql<string | null>`left(${bounces.header}, ${max})`,
      data: sql<string | null>`left(${bounces.data}, ${max})`,
      truncated: sql<boolean>`coalesce(length(${bounces.header}) > ${max}, false) or coalesce(length(${bounces.data}) > ${max}, false)`,
    })
    .from(bounces)
    .leftJoin(campaigns, eq(campaigns.id, bounces.campaignId))
    .leftJoin(subscribers, eq(subscribers.id, bounces.subscriberId))
    .where(eq(bounces.id, id));
  if (!row) return null;
  return { ...toBounce(row), header: row.header, data: row.data, truncated: Boolean(row.truncated) };
}

export async function deleteBounce(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(bounces).where(eq(bounces.id, id)).returning({ id: bounces.id });
  return rows.length > 0;
}

/** Bounces per campaign the caller owns (or nobody owns), most first. Grouped over bounces_campaign_id_idx. */
export async function totalsByCampaign(db: Executor, callerId: number, limit: number): Promise<CampaignBounces[]> {
  const total = count(bounces.id);
  const rows = await db
    .select({ id: campaigns.id, subject: campaigns.subject, total })
    .from(bounces)
    .innerJoin(campaigns, eq(campaigns.id, bounces.campaignId))
    .where(or(eq(campaigns.ownerId, callerId), isNull(campaigns.ownerId)))
    .groupBy(campaigns.id)
    .orderBy(desc(total), asc(campaigns.id))
    .limit(limit);
  return rows.map((r) => ({ message_id: r.id, subject: r.subject, total_bounces: r.total }));
}

/** Bounces per subscriber, most first. Grouped over bounces_subscriber_id_idx. */
export async function totalsBySubscriber(db: Executor, limit: number): Promise<SubscriberBounces[]> {
  const total = count(bounces.id);
  const rows = await db
    .select({
      id: subscribers.id,
      email: subscribers.email,
      confirmed: subscribers.confirmed,
      blacklisted: subscribers.blacklisted,
      total,
    })
    .from(bounces)
    .innerJoin(subscribers, eq(subscribers.id, bounces.subscriberId))
    .groupBy(subscribers.id)
    .orderBy(desc(total), asc(subscribers.id))
    .limit(limit);
  return rows.map((r) => ({
    subscriber_id: r.id,
    email: r.email,
    confirmed: r.confirmed,
    blacklisted: r.blacklisted,
    total_bounces: r.total,
  }));
}
