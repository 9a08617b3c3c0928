import { sql } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { bool, int, text, type Row } from '../db/row.js';

/*
 * The SQL of leaving (leave.service.ts): the one place a subscriber's list memberships are removed at their own
 * request, and their mail still queued for campaigns they are no longer in the audience of is called back.
 */

/**
 * Namespace of the advisory lock between leaving and the audience freeze (sending/audience.repository.ts): every
 * freeze chunk holds it shared, a leave exclusively. A chunk that read the memberships before a leave committed
 * has committed its records before the leave looks for queued mail to skip, and a chunk after the leave reads the
 * memberships without the lists left, so no record is ever left queued for someone who left meanwhile.
 */
export const LEAVE_LOCK = 7392;

/** Waits for freeze chunks under way to commit and holds new ones off until this transaction ends. */
export async function lockOutFreezes(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${LEAVE_LOCK}, 0)`);
}

/**
 * The consent rule (docs/api.md "Consent") over a delivery aliased `d`: its subscriber is still in its campaign's
 * audience — on one of the lists the campaign was frozen from, or, when the campaign's segment was its whole audience,
 * on any list. Leaving skips queued mail where it fails; retrying failed mail (sending) requeues only where it holds.
 */
export const STILL_IN_AUDIENCE = sql`(exists (select 1 from campaign_audience_sources a
                                              join subscriptions m on m.list_id = a.list_id and m.subscriber_id = d.subscriber_id
                                              where a.campaign_id = d.campaign_id)
                                      or (exists (select 1 from campaign_segments g where g.campaign_id = d.campaign_id and not g.narrows_lists)
                                          and exists (select 1 from subscriptions m where m.subscriber_id = d.subscriber_id)))`;

export interface LeftList {
  readonly id: number;
  readonly name: string;
}

const toList = (row: Row): LeftList => ({ id: int(row, 'id'), name: text(row, 'name') });

/** The subscriber's memberships among `listIds` (all of them when null), by name. Changes nothing. */
export async function membershipsAmong(db: Executor, subscriberId: number, listIds: readonly number[] | null): Promise<LeftList[]> {
  if (listIds !== null && listIds.length === 0) return [];
  const among = listIds === null ? sql`` : sql`and m.list_id = any(${sqlArray(listIds, 'int')})`;
  return queryRows(
    db,
    sql`select l.id, l.name from subscriptions m join lists l on l.id = m.list_id
        where m.subscriber_id = ${subscriberId} ${among}
        order by l.name, l.id`,
    toList,
  );
}

/**
 * Removes the subscriber from `listIds` (every list when null) and answers the lists left, by name. One statement:
 * what is removed and what is reported cannot disagree, whoever else writes meanwhile.
 */
export async function removeMemberships(db: Executor, subscriberId: number, listIds: readonly number[] | null): Promise<LeftList[]> {
  if (listIds !== null && listIds.length === 0) return [];
  const among = listIds === null ? sql`` : sql`and list_id = any(${sqlArray(listIds, 'int')})`;
  return queryRows(
    db,
    sql`with removed as (
          delete from subscriptions where subscriber_id = ${subscriberId} ${among}
          returning list_id)
        select l.id, l.name from removed r join lists l on l.id = r.list_id
        order by l.name, l.id`,
    toList,
  );
}

export interface CampaignLists {
  /** The lists the campaign was linked to or frozen from (a resend's lists too). */
  readonly listIds: number[];
  /** Its segment was the whole audience (no lists): the link of such a campaign leaves every list. */
  readonly segmentAlone: boolean;
}

/** What a campaign's audience was made of; undefined when there is no such campaign. */
export async function campaignLists(db: Executor, campaignId: number): Promise<CampaignLists | undefined> {
  const [row] = await queryRows(
    db,
    sql`select array(select list_id from list_campaigns where campaign_id = c.id
                     union
                     select list_id from campaign_audience_sources where campaign_id = c.id) as list_ids,
               exists (select 1 from campaign_segments g where g.campaign_id = c.id and not g.narrows_lists) as segment_alone
        from campaigns c where c.id = ${campaignId}`,
    (row) => ({ listIds: ((row['list_ids'] as unknown[] | null) ?? []).map(Number), segmentAlone: bool(row, 'segment_alone') }),
  );
  return row;
}

/**
 * Calls back the subscriber's still-queued mail (a delivery being sent cannot be) of every campaign whose audience
 * they are no longer in by the consent rule (docs/api.md "Consent"): on none of the lists the campaign was frozen
 * from, and, for a campaign whose segment was the whole audience, on no list at all. `campaignId`'s queued mail is
 * skipped whatever (the unsubscribe link of that campaign: "no more of this"). The records go `skipped` with
 * `reason`, and each campaign's counters move them from queued to skipped in the same statement. Answers how many.
 */
export async function skipQueuedMail(db: Executor, subscriberId: number, reason: string, campaignId: number | null): Promise<number> {
  const [n] = await queryRows(
    db,
    sql`with skipped as (
          update deliveries d
          set status = 'skipped', last_response = ${reason}, lease_until = null, worker_id = null, updated_at = now()
          where d.subscriber_id = ${subscriberId} and d.status = 'queued'
            and (d.campaign_id = ${campaignId ?? 0} or not ${STILL_IN_AUDIENCE})
          returning d.campaign_id),
        per_campaign as (select campaign_id, count(*)::int as n from skipped group by campaign_id),
        counted as (
          insert into campaign_counters (campaign_id, skipped)
          select campaign_id, n from per_campaign
          on conflict (campaign_id) do update
            set queued = greatest(campaign_counters.queued - excluded.skipped, 0),
                skipped = campaign_counters.skipped + excluded.skipped, updated_at = now())
        select coalesce(sum(n), 0)::int as n from per_campaign`,
    (row) => int(row, 'n'),
  );
  return n ?? 0;
}
