import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { array } from './delivery.repository.js';

/**
 * Called in the transaction that makes a campaign `submitted` (PATCH …/status, send, resume, requeue): freezes the
 * audience of the campaign's lists into delivery records. Additive: subscribers who already have a record (sent,
 * failed, skipped or still queued) are left alone, so resubmitting never duplicates.
 */
export async function onCampaignSubmitted(tx: Executor, campaignId: number): Promise<void> {
  await freezeAudience(tx, campaignId);
}

/**
 * One record per (campaign, subscriber) for every confirmed, not blacklisted, not disabled member of the campaign's
 * lists — or of `listIds` (resend) — whose address is not on the blacklist either, in one statement. Returns how many
 * records were added; the campaign's counters and `audience_frozen_at` move in the same statement.
 */
export async function freezeAudience(tx: Executor, campaignId: number, listIds?: readonly number[]): Promise<number> {
  const lists = listIds
    ? sql`select unnest(${array(listIds, 'int')})`
    : sql`select list_id from list_campaigns where campaign_id = ${campaignId}`;
  // Why one statement: 100,000 members freeze in a second or two with no round trips, and the counters cannot
  // drift from the records. DISTINCT folds a subscriber on several lists into one record; ORDER BY gives records in
  // subscriber order, so a campaign goes out in a stable order. The blacklist table is checked as well as the flag,
  // since an address can be blacklisted before (or without) a subscriber carrying it.
  const [row] = await queryRows<{ added: number }>(
    tx,
    sql`with audience as (
          select distinct s.id
          from subscriptions m
          join subscribers s on s.id = m.subscriber_id
          where m.list_id in (${lists})
            and s.confirmed and not s.blacklisted and not s.disabled
            and not exists (select 1 from blacklist b where lower(b.email) = lower(s.email))
          order by s.id
        ),
        inserted as (
          insert into deliveries (campaign_id, subscriber_id)
          select ${campaignId}, id from audience
          on conflict (campaign_id, subscriber_id) do nothing
          returning 1
        ),
        counted as (
          insert into campaign_counters (campaign_id, queued)
          select ${campaignId}, count(*) from inserted
          on conflict (campaign_id) do update
            set queued = campaign_counters.queued + excluded.queued, updated_at = now()
          returning queued
        ),
        stamped as (
          update campaigns set audience_frozen_at = now() where id = ${campaignId} returning id
        )
        -- Data-modifying CTEs run to completion whether or not the final select reads them.
        select count(*)::int as added from inserted`,
  );
  return row?.added ?? 0;
}
