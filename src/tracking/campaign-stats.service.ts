import type { AppContext } from '../context.js';
import { requireCampaign } from '../messaging/campaign.service.js';
import { toAtom } from '../shared/time.js';
import * as repo from './campaign-stats.repository.js';
import type { CampaignStats } from './campaign-stats.schemas.js';

/** One campaign's figures (campaign-stats.schemas.ts); 404 `Campaign not found.` for an unknown campaign. */
export async function campaignStats(ctx: AppContext, campaignId: number): Promise<CampaignStats> {
  await requireCampaign(ctx, campaignId);
  const [counters, sending, hours, links] = await Promise.all([
    repo.findCounters(ctx.db, campaignId),
    repo.countSending(ctx.db, campaignId),
    repo.hourlyEvents(ctx.db, campaignId),
    repo.campaignLinks(ctx.db, campaignId),
  ]);
  const c = counters ?? { queued: 0, sent: 0, failed: 0, skipped: 0, opens: 0, uniqueOpens: 0, humanOpens: 0,
    uniqueHumanOpens: 0, clicks: 0, uniqueClicks: 0, humanClicks: 0, bounces: 0, forwards: 0 };
  return {
    campaign_id: campaignId,
    deliveries: {
      queued: Math.max(0, c.queued - sending),
      sending,
      sent: c.sent,
      failed: c.failed,
      skipped: c.skipped,
    },
    opens: { total: c.opens, unique: c.uniqueOpens, human: c.humanOpens, unique_human: c.uniqueHumanOpens },
    clicks: { total: c.clicks, unique: c.uniqueClicks, human: c.humanClicks },
    bounces: c.bounces,
    forwards: c.forwards,
    opens_per_hour: hours
      .filter((h) => h.opens > 0)
      .map((h) => ({ hour: toAtom(h.hour), opens: h.opens, human_opens: h.humanOpens })),
    clicks_per_hour: hours
      .filter((h) => h.clicks > 0)
      .map((h) => ({ hour: toAtom(h.hour), clicks: h.clicks, human_clicks: h.humanClicks })),
    links: links.map((l) => ({ id: l.id, url: l.url, clicks: l.clicks, unique_clicks: l.uniqueClicks })),
  };
}
