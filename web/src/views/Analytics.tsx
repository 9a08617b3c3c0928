import { lazy, Suspense, useMemo, type ReactNode } from 'react';
import { api, unwrap } from '../api/client';
import { useApi, type Loadable } from '../api/useApi';
import { Link, useLocation, withQuery } from '../router';
import { ErrorState, Loading, PageHeader, Pager } from '../ui/kit';

const Chart = lazy(() => import('../ui/Chart'));

const PAGE = 20;
const n = (value: number) => value.toLocaleString('en');
const pct = (value: number) => `${value.toFixed(1)}%`;

/**
 * The API's analytics views, each a table with a chart: campaign performance (a page of campaigns, by id, in the
 * address as `after`), the largest subscriber domains, confirmation by domain, and the most common local parts.
 * Every figure comes from the API as it is; the page only lays them out.
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

  const campaignChart = useMemo(() => {
    const rows = campaigns.data?.rows ?? [];
    return {
      labels: rows.map((r) => r.subject || `#${r.campaign_id}`),
      series: [
        { label: 'Open rate %', values: rows.map((r) => r.views?.rate ?? 0), color: '--chart-1', bars: true },
        { label: 'Click rate %', values: rows.map((r) => (r.sent > 0 ? Math.round((r.unique_clicks / r.sent) * 1000) / 10 : 0)), color: '--chart-2', bars: true },
      ],
    };
  }, [campaigns.data]);
  const domainChart = useMemo(
    () => ({
      labels: (domains.data?.domains ?? []).map((d) => d.domain),
      series: [{ label: 'Subscribers', values: (domains.data?.domains ?? []).map((d) => d.subscribers), color: '--chart-1', bars: true }],
    }),
    [domains.data],
  );
  const confirmationChart = useMemo(() => {
    const rows = confirmation.data?.domains ?? [];
    return {
      labels: rows.map((d) => d.domain),
      series: [
        { label: 'Confirmed', values: rows.map((d) => d.confirmed.count), color: '--chart-2', bars: true },
        { label: 'Unconfirmed', values: rows.map((d) => d.unconfirmed.count), color: '--chart-3', bars: true },
      ],
    };
  }, [confirmation.data]);
  const localPartChart = useMemo(
    () => ({
      labels: (localParts.data?.local_parts ?? []).map((l) => l.local_part),
      series: [{ label: 'Addresses', values: (localParts.data?.local_parts ?? []).map((l) => l.count), color: '--chart-4', bars: true }],
    }),
    [localParts.data],
  );

  return (
    <>
      <PageHeader title="Analytics" />
      <Section title="Campaign performance" id="campaign-performance" state={campaigns}>
        {(data) =>
          data.rows.length === 0 ? (
            <p className="muted">No campaigns yet.</p>
          ) : (
            <>
              <Suspense fallback={<Loading label="Drawing…" />}>
                <Chart title="Open and click rate of each campaign on this page" labels={campaignChart.labels} series={campaignChart.series} />
              </Suspense>
              <div className="table-wrap" tabIndex={0} role="region" aria-label="Campaign performance table">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Campaign</th>
                      <th scope="col" className="hide-narrow">
                        Sent on
                      </th>
                      <th scope="col" className="num">
                        Sent
                      </th>
                      <th scope="col" className="num">
                        Unique opens
                      </th>
                      <th scope="col" className="num">
                        Open rate
                      </th>
                      <th scope="col" className="num">
                        Human open rate
                      </th>
                      <th scope="col" className="num">
                        Unique clicks
                      </th>
                      <th scope="col" className="num">
                        Bounces
                      </th>
                      <th scope="col" className="num hide-narrow">
                        Forwards
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.rows.map((r) => (
                      <tr key={r.campaign_id}>
                        <td>
                          <Link to={`campaigns/${r.campaign_id}/report`}>{r.subject || `Campaign ${r.campaign_id}`}</Link>
                        </td>
                        <td className="hide-narrow">{r.date_sent ?? '—'}</td>
                        <td className="num">{n(r.sent)}</td>
                        <td className="num">{n(r.unique_views)}</td>
                        <td className="num">{pct(r.views?.rate ?? 0)}</td>
                        <td className="num">{pct(r.views?.human_rate ?? 0)}</td>
                        <td className="num">{n(r.unique_clicks)}</td>
                        <td className="num">{n(r.bounces)}</td>
                        <td className="num hide-narrow">{n(r.forwards)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                total={data.page.pagination.total}
                shown={data.rows.length}
                atStart={after === 0}
                firstHref={withQuery(loc, { after: null })}
                nextHref={data.page.pagination.has_more && data.page.pagination.next_cursor ? withQuery(loc, { after: String(data.page.pagination.next_cursor) }) : null}
              />
            </>
          )
        }
      </Section>
      <div className="two-columns">
        <Section title="Top domains" id="top-domains" state={domains}>
          {(data) =>
            data.domains.length === 0 ? (
              <p className="muted">No subscribers yet.</p>
            ) : (
              <>
                <Suspense fallback={<Loading label="Drawing…" />}>
                  <Chart title="Subscribers of the ten largest domains" labels={domainChart.labels} series={domainChart.series} height={220} />
                </Suspense>
                <Table
                  label="Top domains table"
                  head={['Domain', 'Subscribers']}
                  rows={data.domains.map((d) => ({ key: d.domain, cells: [d.domain, n(d.subscribers)] }))}
                />
              </>
            )
          }
        </Section>
        <Section title="Top local parts" id="top-local-parts" state={localParts}>
          {(data) =>
            data.local_parts.length === 0 ? (
              <p className="muted">No subscribers yet.</p>
            ) : (
              <>
                <Suspense fallback={<Loading label="Drawing…" />}>
                  <Chart title="The ten most common local parts of addresses" labels={localPartChart.labels} series={localPartChart.series} height={220} />
                </Suspense>
                <Table
                  label="Top local parts table"
                  head={['Local part', 'Addresses', 'Share']}
                  rows={data.local_parts.map((l) => ({ key: l.local_part, cells: [l.local_part, n(l.count), pct(l.percentage)] }))}
                />
              </>
            )
          }
        </Section>
      </div>
      <Section title="Confirmation by domain" id="domain-confirmation" state={confirmation}>
        {(data) =>
          data.domains.length === 0 ? (
            <p className="muted">No subscribers yet.</p>
          ) : (
            <>
              <Suspense fallback={<Loading label="Drawing…" />}>
                <Chart title="Confirmed and unconfirmed subscribers of the domains with the most unconfirmed" labels={confirmationChart.labels} series={confirmationChart.series} height={220} />
              </Suspense>
              <Table
                label="Confirmation by domain table"
                head={['Domain', 'Confirmed', 'Unconfirmed', 'Blacklisted', 'Total']}
                rows={data.domains.map((d) => ({
                  key: d.domain,
                  cells: [
                    d.domain,
                    `${n(d.confirmed.count)} (${pct(d.confirmed.percentage)})`,
                    `${n(d.unconfirmed.count)} (${pct(d.unconfirmed.percentage)})`,
                    `${n(d.blacklisted.count)} (${pct(d.blacklisted.percentage)})`,
                    n(d.total.count),
                  ],
                }))}
              />
            </>
          )
        }
      </Section>
    </>
  );
}

function Section<T>({ title, id, state, children }: { title: string; id: string; state: Loadable<T> & { reload: () => void }; children: (data: T) => ReactNode }) {
  return (
    <section className="card stack" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {state.status === 'error' ? <ErrorState error={state.error} retry={state.reload} /> : state.data === undefined ? <Loading /> : children(state.data)}
    </section>
  );
}

/** A table whose first column names the row and the others are figures. */
function Table({ label, head, rows }: { label: string; head: string[]; rows: { key: string; cells: string[] }[] }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={h} scope="col" className={i > 0 ? 'num' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              {r.cells.map((c, i) => (
                <td key={i} className={i > 0 ? 'num' : undefined}>
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
