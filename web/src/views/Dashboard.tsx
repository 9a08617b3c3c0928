import { campaignName } from './campaign/name';
import { lazy, Suspense, useMemo } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { useApi } from '../api/useApi';
import { can, useAuth } from '../auth';
import { Link } from '../router';
import { DataTable } from '../ui/data';
import { formatDate } from '../ui/dates';
import { ErrorState, Loading, PageHeader } from '../ui/kit';

const Chart = lazy(() => import('../ui/Chart'));

type Summary = paths['/api/v2/analytics/dashboard']['get']['responses'][200]['content']['application/json']['summary_statistics'];
type Metric = Summary['total_subscribers'];
type RecentCampaign = paths['/api/v2/analytics/dashboard']['get']['responses'][200]['content']['application/json']['recent_campaigns'][number];

/** Statuses whose campaign has figures to report (the API's analytics list the same); the others open in the editor. */
const REPORTED = new Set(['inprocess', 'sent', 'suspended', 'requeued']);
const campaignHref = (c: RecentCampaign) => (c.status && REPORTED.has(c.status) ? `campaigns/${c.id}/report` : `campaigns/${c.id}`);

/**
 * "+12% vs last month", or nothing where there is nothing to compare with: a percentage of a zero base means nothing
 * ("0% vs last month" when every subscriber is new). A count that grew from nothing says so ("New this month").
 */
function change(m: Metric, unit: '%' | ' pts'): string | undefined {
  if (m.last_month === null) return undefined;
  if (unit === '%' && m.last_month === 0) return m.value > 0 ? 'New this month' : undefined;
  const n = m.change_vs_last_month;
  return `${n > 0 ? '+' : ''}${n}${unit} vs last month`;
}

/** Totals, the latest campaigns with their rates, and a chart of new subscribers per day. */
export default function Dashboard() {
  const { admin } = useAuth();
  const mayReadSubscribers = can(admin, 'subscribers');
  const data = useApi(async () => {
    const [dashboard, lists, growth] = await Promise.all([
      unwrap(api.GET('/api/v2/analytics/dashboard')),
      mayReadSubscribers ? unwrap(api.GET('/api/v2/lists', { params: { query: { limit: 1 } } })).then((p) => p.pagination.total) : null,
      // Totals and the chart's days, from the server's per-day rollup of subscribers.
      unwrap(api.GET('/api/v2/analytics/subscribers/growth')),
    ]);
    return { dashboard, lists, growth };
  }, [mayReadSubscribers]);

  const series = useMemo(() => {
    const g = data.data?.growth;
    if (!g) return null;
    return {
      days: g.days.map((d) => d.date),
      series: [
        { label: 'Subscribers', values: g.days.map((d) => d.total), color: '--chart-1' },
        { label: 'New', values: g.days.map((d) => d.new), color: '--chart-2' },
      ],
    };
  }, [data.data]);

  const activity = useMemo(() => {
    const d = data.data?.dashboard;
    if (!d) return null;
    return {
      sendDays: d.sends_per_day.map((x) => x.date),
      sends: [
        { label: 'Sent', values: d.sends_per_day.map((x) => x.sent), color: '--chart-2', bars: true },
        { label: 'Failed', values: d.sends_per_day.map((x) => x.failed), color: '--chart-3', bars: true },
      ],
      engagementDays: d.campaign_performance.map((x) => x.date),
      engagement: [
        { label: 'Opens', values: d.campaign_performance.map((x) => x.opens), color: '--chart-1' },
        { label: 'Clicks', values: d.campaign_performance.map((x) => x.clicks), color: '--chart-4' },
      ],
      sentTotal: d.sends_per_day.reduce((sum, x) => sum + x.sent, 0),
    };
  }, [data.data]);

  if (data.status === 'error') return <ErrorState error={data.error} retry={data.reload} />;
  if (!data.data) return <Loading />;
  const { dashboard, lists, growth } = data.data;
  const s = dashboard.summary_statistics;
  return (
    <>
      <PageHeader title="Dashboard" />
      <div className="grid" data-testid="totals">
        <Stat label="Subscribers" value={s.total_subscribers.value.toLocaleString('en')} note={change(s.total_subscribers, '%')} />
        <Stat label="Confirmed" value={growth.totals.confirmed.toLocaleString('en')} />
        <Stat label="Blacklisted" value={growth.totals.blacklisted.toLocaleString('en')} />
        {lists !== null && <Stat label="Lists" value={lists.toLocaleString('en')} />}
        <Stat label="Campaigns sending" value={s.active_campaigns.value.toLocaleString('en')} />
        <Stat label="Open rate (30 days)" value={`${s.open_rate.value}%`} note={change(s.open_rate, ' pts')} />
        <Stat label="Bounce rate (30 days)" value={`${s.bounce_rate.value}%`} note={change(s.bounce_rate, ' pts')} />
      </div>
      <section className="card">
        <h2>Campaigns by status</h2>
        {Object.keys(dashboard.campaigns_by_status).length === 0 ? (
          <p className="muted">No campaigns yet.</p>
        ) : (
          <ul className="grid" aria-label="Campaigns by status">
            {Object.entries(dashboard.campaigns_by_status).map(([status, n]) => (
              <li key={status} className="stat">
                <span className="badge">{status}</span> {n.toLocaleString('en')}
              </li>
            ))}
          </ul>
        )}
      </section>
      {activity && (
        <div className="two-columns">
          <section className="card">
            <h2>Mails sent per day</h2>
            <Suspense fallback={<Loading label="Drawing…" />}>
              <Chart
                title={`Campaign mails sent and failed per day over the last 30 days: ${activity.sentTotal.toLocaleString('en')} sent`}
                days={activity.sendDays}
                series={activity.sends}
                height={220}
              />
            </Suspense>
          </section>
          <section className="card">
            <h2>Opens and clicks per day</h2>
            <Suspense fallback={<Loading label="Drawing…" />}>
              <Chart
                title="Opens and clicks per day over the last 30 days"
                days={activity.engagementDays}
                series={activity.engagement}
                height={220}
              />
            </Suspense>
          </section>
        </div>
      )}
      <section className="card">
        <h2>Subscribers over time</h2>
        {series && series.days.length > 0 ? (
          <Suspense fallback={<Loading label="Drawing…" />}>
            <Chart title="Subscribers per day over the last 90 days" days={series.days} series={series.series} />
          </Suspense>
        ) : (
          <p className="muted">No subscribers yet.</p>
        )}
      </section>
      <section className="card">
        <h2>Latest campaigns</h2>
        {dashboard.recent_campaigns.length === 0 ? (
          <p className="muted">No campaign has been sent yet.</p>
        ) : (
          // A named, focusable region, so keyboard users can scroll it where the figures overflow a phone's width.
          <DataTable
            region="Latest campaigns"
            columns={[
              { label: 'Campaign' },
              { label: 'Status', hideNarrow: true },
              { label: 'Date', hideNarrow: true },
              { label: 'Sent', num: true, hideNarrow: true },
              { label: 'Opens', num: true },
              { label: 'Clicks', num: true },
            ]}
          >
            {dashboard.recent_campaigns.map((c) => (
              // On a phone the Status and Sent columns are hidden and what they say shows under the campaign's name (data-narrow).
              <tr key={c.id}>
                <td className="break" data-narrow={`${c.status ?? '—'} · ${c.sent.toLocaleString('en')} mails sent`}>
                  <Link to={campaignHref(c)}>{campaignName(c.name, null, c.id)}</Link>
                </td>
                <td className="hide-narrow">
                  <span className="badge">{c.status ?? '—'}</span>
                </td>
                <td className="hide-narrow">{formatDate(c.date)}</td>
                <td className="num hide-narrow">{c.sent.toLocaleString('en')}</td>
                <td className="num">
                  {c.unique_opens.toLocaleString('en')} ({c.open_rate})
                </td>
                <td className="num">
                  {c.unique_clicks.toLocaleString('en')} ({c.click_rate})
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>
  );
}

function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="card stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {note && <div className="stat-change">{note}</div>}
    </div>
  );
}
