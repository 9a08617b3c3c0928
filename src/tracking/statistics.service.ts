import type { Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { toPage } from '../shared/pagination.js';
import * as repo from './statistics.repository.js';
import type {
  AnalyticsPageQuery,
  CampaignStatistics,
  Dashboard,
  DomainConfirmation,
  TopDomains,
  TopDomainsQuery,
  ViewOpens,
} from './statistics.schemas.js';

/** Reference §8.5: a percentage with one decimal (a whole number prints without one); 0 when there is no base. */
export function percent(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
}

export async function campaignStatistics(ctx: AppContext, query: AnalyticsPageQuery) {
  const limit = query.limit ?? 20;
  const { rows, total } = await repo.campaignFiguresPage(ctx.db, query.after_id ?? 0, limit);
  const items: Static<typeof CampaignStatistics>[] = rows.map((r) => ({
    campaign_id: r.id,
    subject: r.subject,
    name: r.name,
    sent: r.sent,
    bounces: r.bounces,
    forwards: r.forwards,
    unique_views: r.uniqueOpens,
    total_clicks: r.clicks,
    unique_clicks: r.uniqueClicks,
    date_sent: r.dateSent,
    total_views: r.opens,
    unique_human_views: r.uniqueHumanOpens,
    human_clicks: r.humanClicks,
  }));
  return toPage(items, total, limit, (item) => item.campaign_id);
}

export async function viewOpens(ctx: AppContext, query: AnalyticsPageQuery) {
  const limit = query.limit ?? 20;
  const { rows, total } = await repo.campaignFiguresPage(ctx.db, query.after_id ?? 0, limit);
  const items: Static<typeof ViewOpens>[] = rows.map((r) => ({
    campaign_id: r.id,
    subject: r.subject,
    name: r.name,
    sent: r.sent,
    unique_views: r.uniqueOpens,
    rate: percent(r.uniqueOpens, r.sent),
    unique_human_views: r.uniqueHumanOpens,
    human_rate: percent(r.uniqueHumanOpens, r.sent),
  }));
  return toPage(items, total, limit, (item) => item.campaign_id);
}

export async function topDomains(ctx: AppContext, query: TopDomainsQuery): Promise<Static<typeof TopDomains>> {
  const domains = await repo.topDomains(ctx.db, query.min_subscribers ?? 5, query.limit ?? 20);
  return { domains, total: domains.length };
}

export async function domainConfirmation(ctx: AppContext, limit: number): Promise<Static<typeof DomainConfirmation>> {
  const rows = await repo.domainConfirmation(ctx.db, limit);
  const share = (n: number, of: number) => ({ count: n, percentage: percent(n, of) });
  const domains = rows.map((r) => ({
    domain: r.domain,
    confirmed: share(r.confirmed, r.total),
    unconfirmed: share(r.unconfirmed, r.total),
    blacklisted: share(r.blacklisted, r.total),
    total: { count: r.total, percentage: 100 },
  }));
  return { domains, total: domains.length };
}

const RECENT_CAMPAIGNS = 5;
const PERFORMANCE_DAYS = 30;

/**
 * The dashboard (reference §6.20). Counts compare with 30 days earlier as a relative change in percent; rates
 * compare the campaigns of the last 30 days with those of the 30 days before, in percentage points. Active
 * campaigns are those queued or being sent; their past number is not kept, so their change is 0. docs/api.md.
 */
export async function dashboard(ctx: AppContext): Promise<Dashboard> {
  const [f, recent, performance, byStatus, sends] = await Promise.all([
    repo.dashboardFigures(ctx.db),
    repo.recentCampaigns(ctx.db, RECENT_CAMPAIGNS),
    repo.dailyActivity(ctx.db, PERFORMANCE_DAYS),
    repo.campaignsByStatus(ctx.db),
    repo.dailySends(ctx.db, PERFORMANCE_DAYS),
  ]);
  const before = f.subscribers - f.subscribersNew;
  const openRate = percent(f.openedNow, f.sentNow);
  const bounceRate = percent(f.bouncedNow, f.sentNow);
  const pointsChange = (now: number, then: number) => Math.round((now - then) * 10) / 10;
  const rateText = (part: number, whole: number) => `${(whole > 0 ? (part / whole) * 100 : 0).toFixed(2)}%`;
  // The rates of the 30 days before exist only when campaign mails were sent then.
  const openedThen = f.sentBefore > 0 ? percent(f.openedBefore, f.sentBefore) : null;
  const bouncedThen = f.sentBefore > 0 ? percent(f.bouncedBefore, f.sentBefore) : null;
  return {
    summary_statistics: {
      total_subscribers: { value: f.subscribers, change_vs_last_month: percent(f.subscribers - before, before), last_month: before },
      active_campaigns: { value: f.activeCampaigns, change_vs_last_month: 0, last_month: null },
      open_rate: { value: openRate, change_vs_last_month: pointsChange(openRate, openedThen ?? 0), last_month: openedThen },
      bounce_rate: { value: bounceRate, change_vs_last_month: pointsChange(bounceRate, bouncedThen ?? 0), last_month: bouncedThen },
    },
    recent_campaigns: recent.map((c) => ({
      // phpList's field names the campaign; one made before names existed is called by its subject.
      name: c.name ?? c.subject,
      status: c.status,
      date: c.daySent,
      open_rate: rateText(c.uniqueOpens, c.sent),
      click_rate: rateText(c.uniqueClicks, c.sent),
      id: c.id,
      sent: c.sent,
      unique_opens: c.uniqueOpens,
      unique_clicks: c.uniqueClicks,
    })),
    campaign_performance: performance,
    campaigns_by_status: byStatus,
    sends_per_day: sends,
  };
}
