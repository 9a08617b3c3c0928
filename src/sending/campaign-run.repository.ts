import { sql } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { int, textOrNull, timestamp, timestampOrNull } from '../db/row.js';

/*
 * The sender's reads and writes around campaigns (not deliveries): what is due, what is being sent, repeat copies,
 * and the sender's own per-campaign state.
 */

/** `submitted` campaigns whose embargo has come, oldest embargo first (the (status, embargo) index). */
export async function dueCampaignIds(db: Executor, limit = 100): Promise<number[]> {
  return queryRows(db, sql`select id from campaigns where status = 'submitted' and embargo <= now() order by embargo, id limit ${limit}`, (row) =>
    int(row, 'id'),
  );
}

export interface ActiveCampaign {
  readonly id: number;
  /** Content version: a worker recompiles the campaign when it moves. */
  readonly updatedAt: number;
}

/** Campaigns being sent, in the order they started. */
export async function activeCampaigns(db: Executor): Promise<ActiveCampaign[]> {
  return queryRows(
    db,
    sql`select id, updated_at from campaigns where status = 'inprocess' order by send_start nulls last, id`,
    (row): ActiveCampaign => ({ id: int(row, 'id'), updatedAt: timestamp(row, 'updated_at').getTime() }),
  );
}

/** Starts a new run of failures from zero and forgets why the sender last paused the campaign. */
export async function resetSendState(tx: Executor, campaignId: number): Promise<void> {
  await tx.execute(
    sql`update campaign_send_states set consecutive_failures = 0, paused_reason = null, paused_at = null,
          relay_error = null, relay_down_since = null, relay_retry_at = null, updated_at = now()
        where campaign_id = ${campaignId}`,
  );
}

export async function recordPause(tx: Executor, campaignId: number, reason: string): Promise<void> {
  await tx.execute(
    sql`insert into campaign_send_states (campaign_id, paused_reason, paused_at) values (${campaignId}, ${reason}, now())
        on conflict (campaign_id) do update set paused_reason = excluded.paused_reason, paused_at = now(), updated_at = now()`,
  );
}

/** The relay could not be used for this campaign's mail (relay-state.ts): what happened, and the next try. */
export async function recordRelayDown(db: Executor, campaignId: number, error: string, retryAt: Date): Promise<void> {
  await db.execute(
    sql`insert into campaign_send_states (campaign_id, relay_error, relay_down_since, relay_retry_at)
        values (${campaignId}, ${error}, now(), ${retryAt.toISOString()}::timestamptz)
        on conflict (campaign_id) do update set relay_error = excluded.relay_error,
          relay_down_since = coalesce(campaign_send_states.relay_down_since, now()),
          relay_retry_at = excluded.relay_retry_at, updated_at = now()`,
  );
}

/** The relay answers again: these campaigns no longer wait for it. */
export async function clearRelayDown(db: Executor, campaignIds: readonly number[]): Promise<void> {
  if (campaignIds.length === 0) return;
  await db.execute(
    sql`update campaign_send_states set relay_error = null, relay_down_since = null, relay_retry_at = null, updated_at = now()
        where campaign_id = any(${sqlArray(campaignIds, 'integer')}) and relay_down_since is not null`,
  );
}

export async function setEmbargo(tx: Executor, campaignId: number, embargo: Date): Promise<void> {
  await tx.execute(sql`update campaigns set embargo = ${embargo.toISOString()}::timestamptz where id = ${campaignId}`);
}

/**
 * The next occurrence of a repeating campaign: a copy of everything (content, format, schedule, options, template,
 * owner), its list links and its attachments, as a draft with the given embargo. Returns the new campaign's id.
 */
export async function insertRepeatCopy(tx: Executor, sourceId: number, uniqueId: string, embargo: Date): Promise<number> {
  const [id] = await queryRows(
    tx,
    sql`insert into campaigns (unique_id, owner_id, template_id, subject, name, body, text_body, footer, send_format,
          html_formatted, embargo, repeat_interval, repeat_until, requeue_interval, requeue_until, from_field, to_field,
          reply_to, user_selection, click_track, status)
        select ${uniqueId}, owner_id, template_id, subject, name, body, text_body, footer, send_format, html_formatted,
          ${embargo.toISOString()}::timestamptz, repeat_interval, repeat_until, requeue_interval, requeue_until,
          from_field, to_field, reply_to, user_selection, click_track, 'draft'
        from campaigns where id = ${sourceId}
        returning id`,
    (row) => int(row, 'id'),
  );
  if (id === undefined) throw new Error(`campaign ${sourceId} to repeat is gone`);
  await tx.execute(sql`insert into list_campaigns (campaign_id, list_id) select ${id}, list_id from list_campaigns where campaign_id = ${sourceId}`);
  await tx.execute(
    sql`insert into attachments (campaign_id, filename, mime_type, size, description, content_hash)
        select ${id}, filename, mime_type, size, description, content_hash from attachments where campaign_id = ${sourceId}
        order by id`,
  );
  return id;
}

/** Why the sender last paused the campaign, when it did. */
export async function pauseReason(db: Executor, campaignId: number): Promise<{ reason: string; at: Date } | null> {
  const [state] = await queryRows(db, sql`select paused_reason, paused_at from campaign_send_states where campaign_id = ${campaignId}`, (row) => ({
    reason: textOrNull(row, 'paused_reason'),
    at: timestampOrNull(row, 'paused_at'),
  }));
  return state?.reason && state.at ? { reason: state.reason, at: state.at } : null;
}

/** The campaign's current run of failures with no success in between, all workers together. */
export async function consecutiveFailures(db: Executor, campaignId: number): Promise<number> {
  const [n] = await queryRows(db, sql`select consecutive_failures as n from campaign_send_states where campaign_id = ${campaignId}`, (row) =>
    int(row, 'n'),
  );
  return n ?? 0;
}
