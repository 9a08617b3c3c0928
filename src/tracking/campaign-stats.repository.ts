import type { AppDb } from '../db/client.js';
import { int, jsonRows, num, text, textOrNull, timestampOrNull, type Row } from '../db/row.js';
import type { CampaignStats } from './campaign-stats.schemas.js';

export interface CampaignStatsFigures {
  queued: number;
  sending: number;
  sent: number;
  failed: number;
  skipped: number;
  opens: number;
  uniqueOpens: number;
  humanOpens: number;
  uniqueHumanOpens: number;
  clicks: number;
  uniqueClicks: number;
  humanClicks: number;
  bounces: number;
  forwards: number;
  /** Oldest first; `hour` in epoch seconds. */
  hours: { hour: number; opens: number; humanOpens: number; clicks: number; humanClicks: number }[];
  /** Already the answer's own shape (snake_case, as the API is), so they go out as they are. */
  links: CampaignStats['links'];
  consecutiveFailures: number;
  pausedReason: string | null;
  pausedAt: Date | null;
  /** Set while the relay cannot be used for this campaign's mail (sending/relay-state.ts). */
  relay: { error: string; since: Date; retryAt: Date } | null;
  /** The campaign's phpList status. */
  status: string;
  /** The server's (or the composer's) answer to the campaign's latest failed delivery; null when none failed. */
  lastFailure: string | null;
}

const toFigures = (row: Row): CampaignStatsFigures => ({
  queued: num(row, 'queued'),
  sending: num(row, 'sending'),
  sent: num(row, 'sent'),
  failed: num(row, 'failed'),
  skipped: num(row, 'skipped'),
  opens: num(row, 'opens'),
  uniqueOpens: num(row, 'unique_opens'),
  humanOpens: num(row, 'human_opens'),
  uniqueHumanOpens: num(row, 'unique_human_opens'),
  clicks: num(row, 'clicks'),
  uniqueClicks: num(row, 'unique_clicks'),
  humanClicks: num(row, 'human_clicks'),
  bounces: num(row, 'bounces'),
  forwards: num(row, 'forwards'),
  hours: jsonRows(row, 'hours').map((h) => ({
    hour: num(h, 'hour'),
    opens: int(h, 'opens'),
    humanOpens: int(h, 'human_opens'),
    clicks: int(h, 'clicks'),
    humanClicks: int(h, 'human_clicks'),
  })),
  links: jsonRows(row, 'links').map((l) => ({
    id: int(l, 'id'),
    url: text(l, 'url'),
    clicks: int(l, 'clicks'),
    unique_clicks: int(l, 'unique_clicks'),
  })),
  consecutiveFailures: num(row, 'consecutive_failures'),
  pausedReason: textOrNull(row, 'paused_reason'),
  pausedAt: timestampOrNull(row, 'paused_at'),
  relay: relayOf(row),
  status: text(row, 'status'),
  lastFailure: textOrNull(row, 'last_failure'),
});

/**
 * Everything the per-campaign statistics show, in one round trip: the counters row, the hourly rollup, the links,
 * the sender's state and the latest failure's answer, each a primary-key or index range read. `sending` is counted: the sender keeps records in flight under `queued`,
 * and there are never more of them than its batches, so that index range stays short. Undefined: no such campaign.
 * A prepared statement: dashboards poll it, and planning its four subqueries cost as much as running them.
 */
export async function campaignStatsFigures(database: AppDb, campaignId: number): Promise<CampaignStatsFigures | undefined> {
  const [figures] = await database.prepared(
    'campaign_stats',
    `select
          coalesce(k.queued, 0)::float8 as queued, coalesce(k.sent, 0)::float8 as sent,
          coalesce(k.failed, 0)::float8 as failed, coalesce(k.skipped, 0)::float8 as skipped,
          coalesce(k.opens, 0)::float8 as opens, coalesce(k.unique_opens, 0)::float8 as unique_opens,
          coalesce(k.human_opens, 0)::float8 as human_opens, coalesce(k.unique_human_opens, 0)::float8 as unique_human_opens,
          coalesce(k.clicks, 0)::float8 as clicks, coalesce(k.unique_clicks, 0)::float8 as unique_clicks,
          coalesce(k.human_clicks, 0)::float8 as human_clicks, coalesce(k.bounces, 0)::float8 as bounces,
          coalesce(k.forwards, 0)::float8 as forwards,
          (select count(*) from deliveries d where d.campaign_id = c.id and d.status = 'sending')::float8 as sending,
          coalesce((select json_agg(json_build_object('hour', extract(epoch from h.hour), 'opens', h.opens,
                      'human_opens', h.human_opens, 'clicks', h.clicks, 'human_clicks', h.human_clicks) order by h.hour)
                    from campaign_hourly_events h where h.campaign_id = c.id), '[]') as hours,
          coalesce((select json_agg(json_build_object('id', l.id, 'url', l.url, 'clicks', l.clicks,
                      'unique_clicks', l.unique_clicks) order by l.id)
                    from links l where l.campaign_id = c.id), '[]') as links,
          coalesce(s.consecutive_failures, 0)::float8 as consecutive_failures, s.paused_reason, s.paused_at,
          s.relay_error, s.relay_down_since, s.relay_retry_at,
          c.status,
          (select d.last_response from deliveries d where d.campaign_id = c.id and d.status = 'failed'
            order by d.id desc limit 1) as last_failure
        from campaigns c left join campaign_counters k on k.campaign_id = c.id
          left join campaign_send_states s on s.campaign_id = c.id
        where c.id = $1`,
    [campaignId],
    toFigures,
  );
  return figures;
}

function relayOf(row: Row): CampaignStatsFigures['relay'] {
  const error = textOrNull(row, 'relay_error');
  const since = timestampOrNull(row, 'relay_down_since');
  const retryAt = timestampOrNull(row, 'relay_retry_at');
  return error !== null && since !== null && retryAt !== null ? { error, since, retryAt } : null;
}
