import { campaignName } from './campaign/name';
import { lazy, Suspense, type ReactNode } from 'react';
import { api, unwrap } from '../api/client';
import { useApi, type Loadable } from '../api/useApi';
import { Link, useLocation, withQuery } from '../router';
import { formatDateTime } from '../ui/dates';
import { usePoll } from '../ui/poll';
import type { Series } from '../ui/Chart';
import { ErrorState, Loading, PageHeader, Pager, formatCount as n } from '../ui/kit';

const Chart = lazy(() => import('../ui/Chart'));

const PAGE = 20;
/** How often a snapshot being refreshed (the top local parts) is asked for again. */
const SNAPSHOT_POLL_MS = 2_000;
const pct = (value: number) => `${value.toFixed(1)}%`;

/**
 * The API's analytics views, each a table with a chart: campaign performance (a page of campaigns, by id, in the
 * address as `after`), the largest subscriber domains, confirmation by domain, and the most common local parts.
 * Every figure comes from the API as it is (read from the counters and rollups the service keeps); the page only
 * lays them out.
 */
export default function Analytics() {
  const loc = useLocation();
  const after = Number(loc.query.get('after')) || 0;
  const campaigns = useApi(async () => {
    const query = { params: { query: { after_id: after, limit: PAGE } } };
    const [figures, views] = await Promise.all([
      unwrap(api.GET('/api/v2/analytics/campaigns', query)),
      unwrap(api.GET('/api/v2/analytics/view-opens', query)),
    ]);
    const rates = new Map(views.items.map((v) => [v.campaign_id, v]));
    return { page: figures, rows: figures.items.map((c) => ({ ...c, views: rates.get(c.campaign_id) })) };
  }, [after]);
  const domains = useApi(() => unwrap(api.GET('/api/v2/analytics/domains/top', { params: { query: { limit: 10, min_subscribers: 1 } } })), []);
  const confirmation = useApi(() => unwrap(api.GET('/api/v2/analytics/domains/confirmation', { params: { query: { limit: 10 } } })), []);
  const localParts = useApi(() => unwrap(api.GET('/api/v2/analytics/local-parts/top', { params: { query: { limit: 10 } } })), []);
  // A snapshot being refreshed in the background (issue 24): asked again until it is up to date.
  usePoll(async () => localParts.reload(), SNAPSHOT_POLL_MS, localParts.data?.stale === true, true);

  return (
    <>
      <PageHeader title="Analytics" />
      <ChartSection
        title="Campaign performance"
        id="campaign-performance"
        state={campaigns}
        rows={(data) => data.rows}
        empty="No campaigns yet."
        chart={(rows) => ({
          title: 'Open and click rate of each campaign on this page',
          labels: rows.map((r) => campaignName(r.name, r.subject, r.campaign_id)),
          series: [
            { label: 'Open rate %', values: rows.map((r) => r.views?.rate ?? 0), color: '--chart-1', bars: true },
            {
              label: 'Click rate %',
              values: rows.map((r) => (r.sent > 0 ? Math.round((r.unique_clicks / r.sent) * 1000) / 10 : 0)),
              color: '--chart-2',
              bars: true,
            },
          ],
        })}
      >
        {(rows, data) => (
          <>
            <Table
              label="Campaign performance table"
              head={[
                'Campaign',
                { text: 'Sent on', hideNarrow: true, figure: false },
                'Sent',
                { text: 'Unique opens', hideNarrow: true },
                'Open rate',
                { text: 'Human open rate', hideNarrow: true },
                { text: 'Unique clicks', hideNarrow: true },
                { text: 'Bounces', hideNarrow: true },
                { text: 'Forwards', hideNarrow: true },
              ]}
              rows={rows.map((r) => ({
                key: String(r.campaign_id),
                narrow: `${n(r.unique_clicks)} unique clicks, ${n(r.bounces)} bounces`,
                cells: [
                  <Link to={`campaigns/${r.campaign_id}/report`}>{campaignName(r.name, r.subject, r.campaign_id)}</Link>,
                  formatDateTime(r.date_sent),
                  n(r.sent),
                  n(r.unique_views),
                  pct(r.views?.rate ?? 0),
                  pct(r.views?.human_rate ?? 0),
                  n(r.unique_clicks),
                  n(r.bounces),
                  n(r.forwards),
                ],
              }))}
            />
            <Pager
              total={data.page.pagination.total}
              shown={rows.length}
              atStart={after === 0}
              firstHref={withQuery(loc, { after: null })}
              nextHref={
                data.page.pagination.has_more && data.page.pagination.next_cursor
                  ? withQuery(loc, { after: String(data.page.pagination.next_cursor) })
                  : null
              }
            />
          </>
        )}
      </ChartSection>
      <div className="two-columns">
        <ChartSection
          title="Top domains"
          id="top-domains"
          state={domains}
          rows={(data) => data.domains}
          chart={(rows) => ({
            title: 'Subscribers of the ten largest domains',
            labels: rows.map((d) => d.domain),
            series: [{ label: 'Subscribers', values: rows.map((d) => d.subscribers), color: '--chart-1', bars: true }],
            height: 220,
          })}
        >
          {(rows) => (
            <Table
              label="Top domains table"
              head={['Domain', 'Subscribers']}
              rows={rows.map((d) => ({ key: d.domain, cells: [d.domain, n(d.subscribers)] }))}
            />
          )}
        </ChartSection>
        <ChartSection
          title="Top local parts"
          id="top-local-parts"
          state={localParts}
          rows={(data) => data.local_parts}
          empty={(data) => (data.computed_at ? 'No subscribers yet.' : 'Counting the addresses…')}
          chart={(rows) => ({
            title: 'The ten most common local parts of addresses',
            labels: rows.map((l) => l.local_part),
            series: [{ label: 'Addresses', values: rows.map((l) => l.count), color: '--chart-4', bars: true }],
            height: 220,
          })}
        >
          {(rows, data) => (
            <>
              <Table
                label="Top local parts table"
                head={['Local part', 'Addresses', 'Share']}
                rows={rows.map((l) => ({ key: l.local_part, cells: [l.local_part, n(l.count), pct(l.percentage)] }))}
              />
              {/* A snapshot refreshed in the background (issue 24): say how old it is. */}
              <p className="muted" data-testid="local-parts-as-of">
                {data.computed_at ? `As of ${formatDateTime(data.computed_at)}` : 'Not counted yet'}
                {data.stale ? ' · updating…' : ''}
              </p>
            </>
          )}
        </ChartSection>
      </div>
      <ChartSection
        title="Confirmation by domain"
        id="domain-confirmation"
        state={confirmation}
        rows={(data) => data.domains}
        chart={(rows) => ({
          title: 'Confirmed and unconfirmed subscribers of the domains with the most unconfirmed',
          labels: rows.map((d) => d.domain),
          series: [
            { label: 'Confirmed', values: rows.map((d) => d.confirmed.count), color: '--chart-2', bars: true },
            { label: 'Unconfirmed', values: rows.map((d) => d.unconfirmed.count), color: '--chart-3', bars: true },
          ],
          height: 220,
        })}
      >
        {(rows) => (
          <Table
            label="Confirmation by domain table"
            head={['Domain', 'Confirmed', 'Unconfirmed', { text: 'Blacklisted', hideNarrow: true }, { text: 'Total', hideNarrow: true }]}
            rows={rows.map((d) => ({
              key: d.domain,
              narrow: `${n(d.total.count)} in all, ${n(d.blacklisted.count)} blacklisted`,
              cells: [
                d.domain,
                `${n(d.confirmed.count)} (${pct(d.confirmed.percentage)})`,
                `${n(d.unconfirmed.count)} (${pct(d.unconfirmed.percentage)})`,
                `${n(d.blacklisted.count)} (${pct(d.blacklisted.percentage)})`,
                n(d.total.count),
              ],
            }))}
          />
        )}
      </ChartSection>
    </>
  );
}

interface ChartProps {
  title: string;
  labels: string[];
  series: Series[];
  height?: number;
}

/**
 * One analytics section: its heading, then the error, the loading state, a note when there are no rows, or the
 * chart (drawn when its lazy module arrives) above what `children` lays out for the rows (a table).
 */
function ChartSection<T, R>({
  title,
  id,
  state,
  rows,
  empty = 'No subscribers yet.',
  chart,
  children,
}: {
  title: string;
  id: string;
  state: Loadable<T> & { reload: () => void };
  rows: (data: T) => R[];
  empty?: string | ((data: T) => string);
  chart: (rows: R[]) => ChartProps;
  children: (rows: R[], data: T) => ReactNode;
}) {
  const body = () => {
    if (state.status === 'error') return <ErrorState error={state.error} retry={state.reload} />;
    if (state.data === undefined) return <Loading />;
    const items = rows(state.data);
    if (items.length === 0) return <p className="muted">{typeof empty === 'function' ? empty(state.data) : empty}</p>;
    const c = chart(items);
    return (
      <>
        <Suspense fallback={<Loading label="Drawing…" />}>
          <Chart title={c.title} labels={c.labels} series={c.series} height={c.height} />
        </Suspense>
        {children(items, state.data)}
      </>
    );
  };
  return (
    <section className="card stack" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {body()}
    </section>
  );
}

/** A column heading: after the first, columns are figures (right-aligned) unless `figure: false`; `hideNarrow` hides one on narrow screens. */
type Head = string | { text: string; hideNarrow?: boolean; figure?: boolean };

/** One row of a Table: `narrow` is shown under the row's name on a phone, for the figures of columns hidden there. */
interface Row {
  key: string;
  cells: ReactNode[];
  narrow?: string;
}

/**
 * A table whose first column names the row and the others are figures. The name (a domain, a local part, a subject)
 * may break anywhere, so that a long one does not push the table wider than a phone.
 */
function Table({ label, head, rows }: { label: string; head: Head[]; rows: Row[] }) {
  const heads = head.map((h) => (typeof h === 'string' ? { text: h } : h));
  const className = (i: number, cell = false) =>
    [i > 0 && heads[i]?.figure !== false ? 'num' : '', heads[i]?.hideNarrow ? 'hide-narrow' : '', cell && i === 0 ? 'break' : '']
      .filter(Boolean)
      .join(' ') || undefined;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>
            {heads.map((h, i) => (
              <th key={h.text} scope="col" className={className(i)}>
                {h.text}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              {r.cells.map((c, i) => (
                <td key={i} className={className(i, true)} data-narrow={i === 0 ? r.narrow : undefined}>
                  {c}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
