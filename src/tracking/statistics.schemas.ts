import { Type, type Static } from '@sinclair/typebox';
import { MAX_LIMIT } from '../shared/pagination.js';
import { DateTime, Nullable } from '../shared/schemas.js';

/*
 * The analytics endpoints (reference §5.19, shapes §6.20). phpList's keys come first, in its order; ours (human
 * figures, total views) follow, so phpList clients read what they know and ignore the rest.
 */

const limit = (fallback: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: fallback, description: `Items, 1..100 (default ${fallback})` }));

/** Cursor pages of campaigns (reference §6.20 *Recommended*: next_cursor = last id, total = all campaigns). */
export const AnalyticsPageQuery = Type.Object({
  after_id: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Campaigns with an id greater than this' })),
  limit: limit(20),
});
export type AnalyticsPageQuery = Static<typeof AnalyticsPageQuery>;

export const TopDomainsQuery = Type.Object({
  limit: limit(20),
  min_subscribers: Type.Optional(Type.Integer({ minimum: 0, default: 5, description: 'Leave out smaller domains' })),
});
export type TopDomainsQuery = Static<typeof TopDomainsQuery>;

export const DomainConfirmationQuery = Type.Object({ limit: limit(50) });
export const LocalPartsQuery = Type.Object({ limit: limit(25) });

const Count = Type.Integer({ minimum: 0 });
const CampaignName = Nullable(Type.String({ description: 'Ours: the campaign’s name (null for campaigns made before names existed)' }));
const Percent = Type.Number({ description: 'Percent, one decimal' });

export const CampaignStatistics = Type.Object({
  campaign_id: Type.Integer(),
  subject: Type.String(),
  name: CampaignName,
  sent: Type.Integer({ description: 'Delivery records sent' }),
  bounces: Count,
  forwards: Count,
  unique_views: Type.Integer({ description: 'Recipients who opened, at least once (machines included)' }),
  total_clicks: Count,
  unique_clicks: Type.Integer({ description: 'Recipients who clicked, at least once' }),
  date_sent: Nullable(Type.String({ description: '`YYYY-MM-DD HH:MM:SS` (UTC)' })),
  total_views: Type.Integer({ description: 'Every open, repeated ones and machines included' }),
  unique_human_views: Type.Integer({ description: 'Recipients with at least one open judged a person’s' }),
  human_clicks: Type.Integer({ description: 'Clicks judged a person’s' }),
});

export const ViewOpens = Type.Object({
  campaign_id: Type.Integer(),
  subject: Type.String(),
  name: CampaignName,
  sent: Count,
  unique_views: Count,
  rate: Type.Number({ description: 'unique_views ÷ sent, percent, one decimal' }),
  unique_human_views: Count,
  human_rate: Type.Number({ description: 'unique_human_views ÷ sent, percent, one decimal' }),
});

export const TopDomains = Type.Object({
  domains: Type.Array(Type.Object({ domain: Type.String(), subscribers: Count })),
  total: Type.Integer({ description: 'Domains in this answer' }),
});

const Share = Type.Object({ count: Count, percentage: Percent });
export const DomainConfirmation = Type.Object({
  domains: Type.Array(Type.Object({ domain: Type.String(), confirmed: Share, unconfirmed: Share, blacklisted: Share, total: Share })),
  total: Type.Integer({ description: 'Domains in this answer' }),
});

export const TopLocalParts = Type.Object({
  local_parts: Type.Array(Type.Object({ local_part: Type.String(), count: Count, percentage: Percent })),
  total: Type.Integer({ description: 'Local parts in this answer' }),
  computed_at: Type.Union([DateTime, Type.Null()], {
    description: 'Ours: when the figures were computed (a snapshot of every address, refreshed in the background); null before the first',
  }),
  stale: Type.Boolean({
    description:
      'Ours: subscribers changed since `computed_at` (or there is no snapshot yet) and a refresh is running or due: the figures ' +
      'are those of `computed_at`; ask again for newer ones',
  }),
});

const Metric = Type.Object({
  value: Type.Number(),
  change_vs_last_month: Type.Number({ description: '0 when there is nothing to compare with (see `last_month`)' }),
  last_month: Nullable(
    Type.Number({
      description:
        'Ours (additive): the figure 30 days earlier, which the change compares with; null when there is none (no campaign mails in the 30 days before, or not kept), so a client can tell "no change" from "nothing to compare with"',
    }),
  ),
});
export const Dashboard = Type.Object({
  summary_statistics: Type.Object({
    total_subscribers: Metric,
    active_campaigns: Metric,
    open_rate: Metric,
    bounce_rate: Metric,
  }),
  recent_campaigns: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Nullable(Type.String()),
      date: Nullable(Type.String({ description: '`YYYY-MM-DD`' })),
      open_rate: Type.String({ description: 'e.g. `42.50%`' }),
      click_rate: Type.String({ description: 'e.g. `8.10%`' }),
      id: Type.Integer({ description: 'Ours (additive): the campaign id' }),
      sent: Count,
      unique_opens: Count,
      unique_clicks: Count,
    }),
  ),
  campaign_performance: Type.Array(Type.Object({ date: Type.String({ description: '`YYYY-MM-DD`' }), opens: Count, clicks: Count })),
  campaigns_by_status: Type.Record(Type.String(), Type.Integer(), {
    description: 'Ours (additive): the number of campaigns in each status; statuses without campaigns are absent',
  }),
  sends_per_day: Type.Array(
    Type.Object({
      date: Type.String({ description: '`YYYY-MM-DD` (UTC)' }),
      sent: Type.Integer({ minimum: 0, description: 'Campaign mails accepted by the mail server that day' }),
      failed: Type.Integer({ minimum: 0, description: 'Campaign deliveries that failed for good that day' }),
    }),
    { description: 'Ours (additive): the last 30 days, oldest first, quiet days 0, from a per-day rollup the sender keeps' },
  ),
});
export type Dashboard = Static<typeof Dashboard>;

/** The 403 message of every statistics route (shared by the statistics, campaign-stats and growth routes). */
export const STATISTICS_DENIED = 'You are not allowed to access statistics.';
