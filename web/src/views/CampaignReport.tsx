import { nameOf } from './campaign/name';
import { lazy, Suspense, useMemo, type ReactNode } from 'react';
import { api, unwrap } from '../api/client';
import type { CampaignStats } from '../api/types';
import { useApi } from '../api/useApi';
import { can, useAuth } from '../auth';
import { Link, useLocation, withQuery } from '../router';
import { ErrorState, Loading, PageHeader, Pager, formatCount as n, formatRate as rate } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import { usePoll } from '../ui/poll';
import CampaignDomains from './CampaignDomains';

const Chart = lazy(() => import('../ui/Chart'));

const HOUR = 3600;
/** The chart shows at most this many hours, the latest ones (30 days). */
const MAX_HOURS = 720;
/** Figures are read again this often while the page is visible, so late opens and clicks show up. */
const REFRESH_MS = 30_000;

/** Bounces listed per page. */
const BOUNCES_PAGE = 20;

/**
 * A campaign's report, every figure read from the counters the service keeps (GET …/stats): deliveries, bounces,
 * opens and clicks with their rates, opens and clicks per hour, the links, and the recipients' domains (a snapshot: CampaignDomains).
 */
export default function CampaignReport({ id }: { id: number }) {
  const { admin } = useAuth();
  const data = useApi(async () => {
    const path = { params: { path: { messageId: id } } };
    const [campaign, stats] = await Promise.all([
      // The campaign's subject and dates need the campaigns privilege; the figures only statistics.
      can(admin, 'campaigns') ? unwrap(api.GET('/api/v2/campaigns/{messageId}', path)) : null,
      unwrap(api.GET('/api/v2/campaigns/{messageId}/stats', path)),
    ]);
    return { campaign, stats };
  }, [id, admin]);
  usePoll(async () => data.reload(), REFRESH_MS, data.data !== undefined, true);
  const hourly = useMemo(() => (data.data ? hourlySeries(data.data.stats) : null), [data.data]);

  if (data.status === 'error' && !data.data) return <ErrorState error={data.error} retry={data.reload} />;
  if (!data.data) return <Loading />;
  const { campaign, stats: s } = data.data;
  const sent = s.deliveries.sent;
  const title = campaign ? `Report: ${nameOf(campaign)}` : `Report: campaign ${id}`;
  const links = [...s.links].sort((a, b) => b.clicks - a.clicks || a.id - b.id);
  return (
    <>
      <PageHeader title={title} back={{ to: `campaigns/${id}/send`, label: 'Sending progress' }}>
        <button type="button" className="button" onClick={data.reload} disabled={data.status === 'loading'}>
          Refresh
        </button>
        <Link className="button" to={`campaigns/${id}/deliveries`}>
          Deliveries
        </Link>
      </PageHeader>
      {campaign && (
        <p className="muted">
          Status {campaign.message_metadata.status}; started {formatDateTime(campaign.message_metadata.send_start)}
          {campaign.message_metadata.sent ? `, finished ${formatDateTime(campaign.message_metadata.sent)}` : ''}.
        </p>
      )}
      <div className="grid compact" data-testid="report-figures">
        <Stat label="Sent" value={n(sent)} note={s.deliveries.failed > 0 ? `${n(s.deliveries.failed)} failed` : undefined} />
        <Stat label="Delivered" value={n(Math.max(0, sent - s.bounces))} note={rate(Math.max(0, sent - s.bounces), sent)} />
        <Stat label="Bounced" value={n(s.bounces)} note={rate(s.bounces, sent)} />
        <Stat label="Unique opens" value={n(s.opens.unique)} note={`${rate(s.opens.unique, sent)} open rate`} />
        <Stat label="Opens" value={n(s.opens.total)} note={`${n(s.opens.human)} by people, ${n(s.opens.total - s.opens.human)} by machines`} />
        <Stat label="Unique human opens" value={n(s.opens.unique_human)} note={rate(s.opens.unique_human, sent)} />
        <Stat
          label="Unique clicks"
          value={n(s.clicks.unique)}
          note={`${rate(s.clicks.unique, sent)} click rate, ${rate(s.clicks.unique, s.opens.unique)} of openers`}
        />
        <Stat label="Clicks" value={n(s.clicks.total)} note={`${n(s.clicks.human)} by people`} />
        <Stat label="Forwards" value={n(s.forwards)} />
      </div>
      <section className="card">
        <h2>Opens and clicks per hour</h2>
        {hourly && hourly.times.length > 0 ? (
          <Suspense fallback={<Loading label="Drawing…" />}>
            <Chart
              title={`Opens and clicks per hour: ${n(s.opens.total)} opens, ${n(s.clicks.total)} clicks in all`}
              times={hourly.times}
              series={hourly.series}
            />
          </Suspense>
        ) : (
          <p className="muted">No opens or clicks yet.</p>
        )}
      </section>
      <section className="card">
        <h2>Links</h2>
        {links.length === 0 ? (
          <p className="muted">The campaign has no tracked links.</p>
        ) : (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Links and their clicks">
            <table>
              <thead>
                <tr>
                  <th scope="col">Link</th>
                  <th scope="col" className="num">
                    Clicks
                  </th>
                  <th scope="col" className="num">
                    Unique
                  </th>
                </tr>
              </thead>
              <tbody>
                {links.map((l) => (
                  <tr key={l.id}>
                    <td className="url">{l.url}</td>
                    <td className="num">{n(l.clicks)}</td>
                    <td className="num">{n(l.unique_clicks)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section className="card" aria-labelledby="report-domains">
        <h2 id="report-domains">Recipient domains</h2>
        <CampaignDomains id={id} />
      </section>
      <section className="card" aria-labelledby="report-bounces">
        <h2 id="report-bounces">Bounces</h2>
        <BounceList id={id} counted={s.bounces} sent={sent}>
          {s.deliveries.failed > 0 && (
            <p>
              {n(s.deliveries.failed)} {s.deliveries.failed === 1 ? 'delivery' : 'deliveries'} failed at sending.{' '}
              <Link to={`campaigns/${id}/deliveries?status=failed`}>See which</Link>
            </p>
          )}
        </BounceList>
      </section>
    </>
  );
}

/** The hours between the first and the last with events (at most MAX_HOURS, the latest), quiet hours 0. */
function hourlySeries(s: CampaignStats) {
  const at = (atom: string) => Math.floor(Date.parse(atom) / 1000 / HOUR) * HOUR;
  const opens = new Map(s.opens_per_hour.map((h) => [at(h.hour), h]));
  const clicks = new Map(s.clicks_per_hour.map((h) => [at(h.hour), h]));
  const all = [...opens.keys(), ...clicks.keys()];
  if (all.length === 0) return { times: [], series: [] };
  // A quiet hour on each side, so a send whose events all fall in one hour still draws a line.
  const last = Math.max(...all) + HOUR;
  const first = Math.max(Math.min(...all) - HOUR, last - (MAX_HOURS - 1) * HOUR);
  const times: number[] = [];
  for (let t = first; t <= last; t += HOUR) times.push(t);
  return {
    times,
    series: [
      { label: 'Opens', values: times.map((t) => opens.get(t)?.opens ?? 0), color: '--chart-1' },
      { label: 'Human opens', values: times.map((t) => opens.get(t)?.human_opens ?? 0), color: '--chart-4' },
      { label: 'Clicks', values: times.map((t) => clicks.get(t)?.clicks ?? 0), color: '--chart-2' },
    ],
  };
}

/**
 * The bounces matched to the campaign (GET …/bounces), a page at a time by id (`bounces_after` in the address): when,
 * the subscriber (to their page), status and the rule's comment, and a link to the subscriber's bounces.
 */
function BounceList({ id, counted, sent, children }: { id: number; counted: number; sent: number; children?: ReactNode }) {
  const { admin } = useAuth();
  const loc = useLocation();
  const after = Number(loc.query.get('bounces_after')) || 0;
  const page = useApi(
    () =>
      unwrap(
        api.GET('/api/v2/campaigns/{messageId}/bounces', { params: { path: { messageId: id }, query: { after_id: after, limit: BOUNCES_PAGE } } }),
      ),
    [id, after],
  );
  if (page.status === 'error') return <ErrorState error={page.error} retry={page.reload} />;
  if (!page.data) return <Loading label="Reading bounces…" />;
  const { items, pagination } = page.data;
  // The campaign's bounce counter is folded in about a second after each bounce (040_bounce_counts.sql); the list's
  // total is exact, so the sentence takes the larger and never says none above a listed bounce.
  const bounced = Math.max(counted, pagination.total);
  const summary =
    bounced === 0
      ? 'No mail of this campaign has bounced.'
      : `${n(bounced)} ${bounced === 1 ? 'mail' : 'mails'} bounced (${rate(bounced, sent)} of those sent).`;
  if (items.length === 0 && after === 0)
    return (
      <>
        <p>{summary}</p>
        {children}
      </>
    );
  return (
    <>
      <p>{summary}</p>
      {children}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Bounces of this campaign">
        <table>
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Subscriber</th>
              <th scope="col">Status</th>
              <th scope="col" className="hide-narrow">
                Rule / comment
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((b) => (
              <tr key={b.id}>
                <td>{formatDateTime(b.date)}</td>
                <td>
                  {b.subscriber_id === null ? (
                    <span className="muted">Not matched</span>
                  ) : can(admin, 'subscribers') ? (
                    <Link to={`subscribers/${b.subscriber_id}`}>{b.subscriber_email ?? `Subscriber ${b.subscriber_id}`}</Link>
                  ) : (
                    (b.subscriber_email ?? `Subscriber ${b.subscriber_id}`)
                  )}
                  {b.subscriber_id !== null && can(admin, 'campaigns') && (
                    <>
                      {' '}
                      <Link
                        to={`bounces?subscriber=${b.subscriber_id}`}
                        aria-label={`All bounces of ${b.subscriber_email ?? `subscriber ${b.subscriber_id}`}`}
                      >
                        (bounces)
                      </Link>
                    </>
                  )}
                </td>
                <td>{b.status ?? '—'}</td>
                <td className="hide-narrow">{b.comment ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        total={pagination.total}
        shown={items.length}
        atStart={after === 0}
        firstHref={withQuery(loc, { bounces_after: null })}
        nextHref={pagination.has_more && pagination.next_cursor ? withQuery(loc, { bounces_after: String(pagination.next_cursor) }) : null}
      />
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
