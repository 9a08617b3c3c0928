import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { CAMPAIGN_NOT_FOUND, listBounces } from '../messaging/index.js';
import { campaigns } from '../db/schema/index.js';
import { NotFoundError } from '../shared/errors.js';
import { DEFAULT_LIMIT, toPage, type PageQuery } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import { campaignStatsFigures, type CampaignStatsFigures } from './campaign-stats.repository.js';
import type { CampaignStats } from './campaign-stats.schemas.js';

/** One campaign's figures (campaign-stats.schemas.ts); 404 `Campaign not found.` for an unknown campaign. */
export async function campaignStats(ctx: AppContext, campaignId: number): Promise<CampaignStats> {
  const c = await campaignStatsFigures(ctx.db, campaignId);
  if (!c) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  const hour = (epochSeconds: number) => toAtom(new Date(epochSeconds * 1000));
  return {
    campaign_id: campaignId,
    deliveries: {
      queued: Math.max(0, c.queued - c.sending),
      sending: c.sending,
      sent: c.sent,
      failed: c.failed,
      skipped: c.skipped,
    },
    opens: { total: c.opens, unique: c.uniqueOpens, human: c.humanOpens, unique_human: c.uniqueHumanOpens },
    clicks: { total: c.clicks, unique: c.uniqueClicks, human: c.humanClicks },
    bounces: c.bounces,
    forwards: c.forwards,
    opens_per_hour: c.hours.filter((h) => h.opens > 0).map((h) => ({ hour: hour(h.hour), opens: h.opens, human_opens: h.humanOpens })),
    clicks_per_hour: c.hours.filter((h) => h.clicks > 0).map((h) => ({ hour: hour(h.hour), clicks: h.clicks, human_clicks: h.humanClicks })),
    links: c.links,
    sender: {
      consecutive_failures: c.consecutiveFailures,
      paused_reason: c.pausedReason,
      paused_at: toAtom(c.pausedAt),
      relay_unavailable: c.relay && { reason: c.relay.error, since: toAtom(c.relay.since), retry_at: toAtom(c.relay.retryAt) },
    },
    outcome: { result: outcomeOf(c), sent: c.sent, failed: c.failed, skipped: c.skipped, reason: c.failed > 0 ? c.lastFailure : null },
  };
}

/** phpList's `sent` says only that nothing is left to send; this says whether it reached anyone. */
function outcomeOf(c: CampaignStatsFigures): CampaignStats['outcome']['result'] {
  if (c.status !== 'sent') return 'in progress';
  if (c.failed === 0) return c.sent > 0 ? 'sent' : 'none sent';
  return c.sent > 0 ? 'partially failed' : 'failed';
}

/**
 * A page of the bounces matched to a campaign, by id, with the subscriber's address (the report's list; each links
 * to GET /bounces/{id}); 404 for an unknown campaign. Read from bounces_campaign_id_idx, so a page costs the same
 * for ten bounces as for a hundred thousand.
 */
export async function campaignBounces(ctx: AppContext, campaignId: number, query: PageQuery) {
  const [campaign] = await ctx.db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, campaignId));
  if (!campaign) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const { items, total } = await listBounces(ctx.db, { campaignId }, query.after_id ?? 0, limit);
  return toPage(items, total, limit, (b) => b.id);
}
