import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, num, text, textOrNull, type Row } from '../db/row.js';

/*
 * The analytics queries. Campaign figures come from campaign_counters (kept by the sender, bounce processing,
 * forwards and the tracking flush), so a page of campaigns is one keyset read whatever the number of deliveries.
 * The audience figures by domain come from the rollups the triggers of routines/013_subscriber_rollups.sql keep
 * beside the subscribers: a domain's figures are the sum of its (up to 16) shard rows. The top local parts are a
 * snapshot (local-parts.service.ts).
 */

export interface CampaignFigures {
  id: number;
  subject: string;
  name: string | null;
  status: string;
  /** The campaign's sent time, UTC, as phpList's analytics print it (`YYYY-MM-DD HH:MM:SS`), and its day. */
  dateSent: string | null;
  daySent: string | null;
  sent: number;
  bounces: number;
  forwards: number;
  opens: number;
  uniqueOpens: number;
  uniqueHumanOpens: number;
  clicks: number;
  uniqueClicks: number;
  humanClicks: number;
}

const toCampaignFigures = (row: Row): CampaignFigures => ({
  id: int(row, 'id'),
  subject: text(row, 'subject'),
  name: textOrNull(row, 'name'),
  status: text(row, 'status'),
  dateSent: textOrNull(row, 'date_sent'),
  daySent: textOrNull(row, 'day_sent'),
  sent: num(row, 'sent'),
  bounces: num(row, 'bounces'),
  forwards: num(row, 'forwards'),
  opens: num(row, 'opens'),
  uniqueOpens: num(row, 'unique_opens'),
  uniqueHumanOpens: num(row, 'unique_human_opens'),
  clicks: num(row, 'clicks'),
  uniqueClicks: num(row, 'unique_clicks'),
  humanClicks: num(row, 'human_clicks'),
});

// A plain template rather than the query builder: this runs on every analytics request, and building a 13-column
// select costs more than the query itself.
const figures = sql`c.id, c.subject, c.name, c.status,
  to_char(c.sent_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as date_sent,
  to_char(c.sent_at at time zone 'UTC', 'YYYY-MM-DD') as day_sent,
  coalesce(k.sent, 0)::float8 as sent, coalesce(k.bounces, 0)::float8 as bounces,
  coalesce(k.forwards, 0)::float8 as forwards, coalesce(k.opens, 0)::float8 as opens,
  coalesce(k.unique_opens, 0)::float8 as unique_opens, coalesce(k.unique_human_opens, 0)::float8 as unique_human_opens,
  coalesce(k.clicks, 0)::float8 as clicks, coalesce(k.unique_clicks, 0)::float8 as unique_clicks,
  coalesce(k.human_clicks, 0)::float8 as human_clicks`;

/**
 * Campaigns that were sent or are sending, the only ones analytics lists: drafts and campaigns still waiting to
 * start (prepared, submitted) have no figures to show. A suspended send has usually started, and a requeued one was
 * sent. Unqualified: campaign_counters, joined where it is used, has no status. docs/api.md "Analytics leave out drafts".
 */
const SENT_OR_SENDING = sql`status in ('inprocess', 'sent', 'suspended', 'requeued')`;

/** A page of the sent or sending campaigns (no owner filter, reference §5.19) by id, with their counters, and their number. */
export async function campaignFiguresPage(db: Executor, afterId: number, limit: number): Promise<{ rows: CampaignFigures[]; total: number }> {
  // The number of campaigns rides along (one round trip); on an empty page it is read on its own.
  const page = await queryRows(
    db,
    sql`select ${figures}, (select count(*) from campaigns where ${SENT_OR_SENDING})::int as total
        from campaigns c left join campaign_counters k on k.campaign_id = c.id
        where c.id > ${afterId} and ${SENT_OR_SENDING} order by c.id limit ${limit}`,
    (row) => ({ figures: toCampaignFigures(row), total: int(row, 'total') }),
  );
  const total =
    page[0]?.total ?? (await queryRows(db, sql`select count(*)::int as n from campaigns where ${SENT_OR_SENDING}`, (row) => int(row, 'n')))[0] ?? 0;
  return { rows: page.map((p) => p.figures), total };
}

/** The most recently sent (or started) campaigns that are not drafts, newest first. */
export async function recentCampaigns(db: Executor, limit: number): Promise<CampaignFigures[]> {
  return queryRows(
    db,
    sql`select ${figures} from campaigns c left join campaign_counters k on k.campaign_id = c.id
        where c.status <> 'draft'
        order by coalesce(c.sent_at, c.send_start, c.embargo) desc, c.id desc limit ${limit}`,
    toCampaignFigures,
  );
}

/** How many campaigns there are in each status, counted in SQL (statuses without campaigns are absent). */
export async function campaignsByStatus(db: Executor): Promise<Record<string, number>> {
  const rows = await queryRows(db, sql`select status, count(*)::int as n from campaigns group by status order by status`, (row): [string, number] => [
    text(row, 'status'),
    int(row, 'n'),
  ]);
  return Object.fromEntries(rows);
}

export interface DomainRow {
  domain: string;
  subscribers: number;
}

/** Per domain, its figures summed over its shards (domains whose subscribers are all gone left out). */
const domainSums = sql`select domain, sum(confirmed)::int as confirmed, sum(unconfirmed)::int as unconfirmed,
    sum(blacklisted)::int as blacklisted, sum(confirmed + unconfirmed + blacklisted)::int as total
  from subscriber_domain_counts group by domain having sum(confirmed + unconfirmed + blacklisted) > 0`;

/** Subscribers per domain (lower-cased part after `@`), domains with at least `minimum`, largest first. */
export async function topDomains(db: Executor, minimum: number, limit: number): Promise<DomainRow[]> {
  return queryRows(
    db,
    sql`select domain, total as subscribers from (${domainSums}) d
        where total >= ${minimum} order by total desc, domain limit ${limit}`,
    (row) => ({ domain: text(row, 'domain'), subscribers: int(row, 'subscribers') }),
  );
}

export interface DomainConfirmationRow {
  domain: string;
  confirmed: number;
  unconfirmed: number;
  blacklisted: number;
  total: number;
}

/** Per domain, each subscriber once: blacklisted, else confirmed, else unconfirmed; most unconfirmed first (§8.5). */
export async function domainConfirmation(db: Executor, limit: number): Promise<DomainConfirmationRow[]> {
  return queryRows(
    db,
    sql`select domain, confirmed, unconfirmed, blacklisted, total from (${domainSums}) d
        order by unconfirmed desc, domain limit ${limit}`,
    (row) => ({
      domain: text(row, 'domain'),
      confirmed: int(row, 'confirmed'),
      unconfirmed: int(row, 'unconfirmed'),
      blacklisted: int(row, 'blacklisted'),
      total: int(row, 'total'),
    }),
  );
}

export interface DashboardFigures {
  subscribers: number;
  subscribersNew: number;
  activeCampaigns: number;
  sentNow: number;
  openedNow: number;
  bouncedNow: number;
  sentBefore: number;
  openedBefore: number;
  bouncedBefore: number;
}

/**
 * The dashboard's summary in one statement. Subscribers from the trigger-kept count (routines/011) and those created
 * in the last 30 days; rates over the campaigns sent (or started) in the last 30 days and the 30 days before.
 */
export async function dashboardFigures(db: Executor): Promise<DashboardFigures> {
  const [figures] = await queryRows(
    db,
    sql`with windowed as (
          select coalesce(c.sent_at, c.send_start) >= now() - interval '30 days' as recent,
                 coalesce(k.sent, 0) as sent, coalesce(k.unique_opens, 0) as opened, coalesce(k.bounces, 0) as bounced
          from campaigns c join campaign_counters k on k.campaign_id = c.id
          where coalesce(c.sent_at, c.send_start) >= now() - interval '60 days'
        )
        select
          (select coalesce(sum(subscribers), 0) from subscriber_counts)::float8 as subscribers,
          -- Created on one of the last 30 UTC days, today included (the rollup of routine 013).
          (select coalesce(sum(subscribers), 0) from subscriber_daily_counts
           where day > (now() at time zone 'utc')::date - 30)::float8 as subscribers_new,
          (select count(*) from campaigns where status in ('submitted', 'prepared', 'inprocess', 'requeued'))::float8
            as active_campaigns,
          coalesce(sum(sent) filter (where recent), 0)::float8 as sent_now,
          coalesce(sum(opened) filter (where recent), 0)::float8 as opened_now,
          coalesce(sum(bounced) filter (where recent), 0)::float8 as bounced_now,
          coalesce(sum(sent) filter (where not recent), 0)::float8 as sent_before,
          coalesce(sum(opened) filter (where not recent), 0)::float8 as opened_before,
          coalesce(sum(bounced) filter (where not recent), 0)::float8 as bounced_before
        from windowed`,
    (row): DashboardFigures => ({
      subscribers: num(row, 'subscribers'),
      subscribersNew: num(row, 'subscribers_new'),
      activeCampaigns: num(row, 'active_campaigns'),
      sentNow: num(row, 'sent_now'),
      openedNow: num(row, 'opened_now'),
      bouncedNow: num(row, 'bounced_now'),
      sentBefore: num(row, 'sent_before'),
      openedBefore: num(row, 'opened_before'),
      bouncedBefore: num(row, 'bounced_before'),
    }),
  );
  return figures!;
}

/** Opens and clicks per UTC day of the last `days` days (today included), from the hourly rollup; quiet days are 0. */
export async function dailyActivity(db: Executor, days: number): Promise<{ date: string; opens: number; clicks: number }[]> {
  return queryRows(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(sum(h.opens), 0)::float8 as opens,
          coalesce(sum(h.clicks), 0)::float8 as clicks
        from generate_series(date_trunc('day', now() at time zone 'UTC') - (${days - 1}::int * interval '1 day'),
                             date_trunc('day', now() at time zone 'UTC'), interval '1 day') as d(day)
        left join campaign_hourly_events h
          on h.hour >= d.day at time zone 'UTC' and h.hour < (d.day + interval '1 day') at time zone 'UTC'
        group by d.day order by d.day`,
    (row) => ({ date: text(row, 'date'), opens: num(row, 'opens'), clicks: num(row, 'clicks') }),
  );
}

/** Deliveries sent and failed per UTC day of the last `days` days (today included), from campaign_daily_sends; quiet days are 0. */
export async function dailySends(db: Executor, days: number): Promise<{ date: string; sent: number; failed: number }[]> {
  return queryRows(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(sum(s.sent), 0)::float8 as sent,
          coalesce(sum(s.failed), 0)::float8 as failed
        from generate_series((now() at time zone 'UTC')::date - ${days - 1}::int, (now() at time zone 'UTC')::date,
                             interval '1 day') as d(day)
        left join campaign_daily_sends s on s.day = d.day::date
        group by d.day order by d.day`,
    (row) => ({ date: text(row, 'date'), sent: num(row, 'sent'), failed: num(row, 'failed') }),
  );
}
