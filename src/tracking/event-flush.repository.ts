import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor, sqlArray, sqlColumn } from '../db/client.js';
import type { Row } from '../db/row.js';
import type { ClickEvent, OpenEvent } from './tracking-event.js';

/*
 * The statements of one flush of the event buffer (event-flush.service.ts runs them in one transaction). Each takes
 * whole columns as arrays and unnests them: a round trip or two per table for the whole batch, on PGlite and
 * PostgreSQL. Whether an event is a machine's is decided in TypeScript (machine-detection.ts) between the match and
 * the insert; the statements only fetch what it needs and store what it decided.
 */

const times = (values: readonly Date[]) => sqlColumn(values, 'timestamptz', (d) => d.toISOString());

export interface MatchedEvent {
  /** 1-based position of the event in the batch. */
  readonly ord: number;
  readonly deliveryId: number;
  readonly subscriberId: number;
  /** The delivery's sending, for the timing rule of machine-detection.ts. */
  readonly sentAt: Date | null;
  readonly deliveryStatus: string;
  /** The delivery's firsts before this batch, as this statement saw them (updateDeliveryFirsts settles races). */
  readonly opened: boolean;
  readonly humanOpened: boolean;
  readonly clicked: boolean;
}

/*
 * The flush's hot mappers (thousands of rows a batch) read each column by its literal name, converting as the
 * service did before, rather than through db/row.ts: its readers take the column name as a variable, a keyed load
 * V8 cannot specialise, and mapping 5,000 matched events took about 3 times as long with them (a micro-measurement
 * of the mapper alone). The columns are this file's own statements', typed by their SQL (ids are bigint: text from
 * node-postgres). sent_at becomes a Date here instead of in the service, only when the driver gives text.
 */
const toMatchedEvent = (row: Row): MatchedEvent => {
  const sentAt = row['sent_at'];
  return {
    ord: Number(row['ord']),
    deliveryId: Number(row['delivery_id']),
    subscriberId: Number(row['subscriber_id']),
    sentAt: sentAt instanceof Date || sentAt === null ? sentAt : new Date(String(sentAt)),
    deliveryStatus: String(row['delivery_status']),
    opened: row['opened'] === true,
    humanOpened: row['human_opened'] === true,
    clicked: row['clicked'] === true,
  };
};

/**
 * The delivery record of `campaign` and `subscriber`, with the firsts it has. A LATERAL with LIMIT so that each event
 * is an index lookup: a join would let the planner hash whole tables for a batch of a few thousand.
 */
function deliveryOf(campaign: SQL, subscriber: SQL): SQL {
  return sql`cross join lateral (
    select id, sent_at, status, first_opened_at is not null as opened, first_human_opened_at is not null as human_opened,
           first_clicked_at is not null as clicked
    from deliveries where campaign_id = ${campaign} and subscriber_id = ${subscriber} limit 1) d`;
}

const matchedColumns = sql`i.ord::int as ord, d.id as delivery_id, d.sent_at, d.status as delivery_status, d.opened,
  d.human_opened, d.clicked`;

/**
 * The opens whose uid names a subscriber who has a delivery record of the campaign (reference §5.20: no delivery,
 * nothing recorded), with that record.
 */
export async function matchOpens(tx: Executor, opens: readonly OpenEvent[]): Promise<MatchedEvent[]> {
  return queryRows(
    tx,
    sql`select ${matchedColumns}, s.id as subscriber_id
        from unnest(${sqlColumn(opens, 'text', (o) => o.uid)}, ${sqlColumn(opens, 'integer', (o) => o.campaignId)})
          with ordinality as i(uid, campaign_id, ord)
        cross join lateral (select id from subscribers where unique_id = i.uid limit 1) s
        ${deliveryOf(sql`i.campaign_id`, sql`s.id`)}
        order by i.ord`,
    toMatchedEvent,
  );
}

/** The clicks of subscribers who have a delivery record of the link's campaign, with that record. */
export async function matchClicks(tx: Executor, clicks: readonly ClickEvent[]): Promise<MatchedEvent[]> {
  return queryRows(
    tx,
    sql`select ${matchedColumns}, i.subscriber_id
        from unnest(${sqlColumn(clicks, 'integer', (c) => c.linkId)}, ${sqlColumn(clicks, 'integer', (c) => c.campaignId)},
          ${sqlColumn(clicks, 'integer', (c) => c.subscriberId)}) with ordinality as i(link_id, campaign_id, subscriber_id, ord)
        cross join lateral (select 1 from links where id = i.link_id and campaign_id = i.campaign_id limit 1) l
        ${deliveryOf(sql`i.campaign_id`, sql`i.subscriber_id`)}
        order by i.ord`,
    toMatchedEvent,
  );
}

export interface StoredClick {
  readonly linkId: number;
  readonly campaignId: number;
  readonly subscriberId: number;
  readonly at: Date;
}

/** Clicks already stored of the same mail (campaign and subscriber) as each of `clicks`, at most `marginMs` apart. */
export async function storedClicksNear(tx: Executor, clicks: readonly ClickEvent[], marginMs: number): Promise<StoredClick[]> {
  return queryRows(
    tx,
    sql`select distinct c.link_id, c.campaign_id, c.subscriber_id, c.clicked_at
        from unnest(${sqlColumn(clicks, 'integer', (c) => c.campaignId)}, ${sqlColumn(clicks, 'integer', (c) => c.subscriberId)},
          ${times(clicks.map((c) => c.at))}) as i(campaign_id, subscriber_id, clicked_at)
        join clicks c on c.subscriber_id = i.subscriber_id and c.campaign_id = i.campaign_id
          and c.clicked_at between i.clicked_at - ${marginMs}::int * interval '1 millisecond'
                               and i.clicked_at + ${marginMs}::int * interval '1 millisecond'`,
    // Hot, as toMatchedEvent: literal column names.
    (row): StoredClick => {
      const at = row['clicked_at'];
      return {
        linkId: Number(row['link_id']),
        campaignId: Number(row['campaign_id']),
        subscriberId: Number(row['subscriber_id']),
        at: at instanceof Date ? at : new Date(String(at)),
      };
    },
  );
}

export interface OpenRow {
  campaignId: number;
  subscriberId: number;
  at: Date;
  ip: string | null;
  userAgent: string | null;
  referer: string | null;
  machineReason: string | null;
}

/** Stores opens, those of the pixel and those that clicks imply (the reader's images were blocked), in this order. */
export async function insertOpens(tx: Executor, rows: readonly OpenRow[]): Promise<void> {
  await tx.execute(sql`
    insert into opens (campaign_id, subscriber_id, opened_at, ip, user_agent, referer, machine, machine_reason)
    select campaign_id, subscriber_id, opened_at, ip, user_agent, referer, reason is not null, reason
    from unnest(${sqlColumn(rows, 'integer', (r) => r.campaignId)}, ${sqlColumn(rows, 'integer', (r) => r.subscriberId)},
      ${times(rows.map((r) => r.at))}, ${sqlColumn(rows, 'text', (r) => r.ip)}, ${sqlColumn(rows, 'text', (r) => r.userAgent)},
      ${sqlColumn(rows, 'text', (r) => r.referer)}, ${sqlColumn(rows, 'text', (r) => r.machineReason)})
      with ordinality as t(campaign_id, subscriber_id, opened_at, ip, user_agent, referer, reason, ord)
    order by ord`);
}

export interface ClickRow {
  linkId: number;
  campaignId: number;
  subscriberId: number;
  at: Date;
  ip: string | null;
  userAgent: string | null;
  referer: string | null;
  machineReason: string | null;
}

export async function insertClicks(tx: Executor, rows: readonly ClickRow[]): Promise<void> {
  await tx.execute(sql`
    insert into clicks (link_id, campaign_id, subscriber_id, clicked_at, ip, user_agent, referer, machine, machine_reason)
    select link_id, campaign_id, subscriber_id, clicked_at, ip, user_agent, referer, reason is not null, reason
    from unnest(${sqlColumn(rows, 'integer', (r) => r.linkId)}, ${sqlColumn(rows, 'integer', (r) => r.campaignId)},
      ${sqlColumn(rows, 'integer', (r) => r.subscriberId)}, ${times(rows.map((r) => r.at))},
      ${sqlColumn(rows, 'text', (r) => r.ip)}, ${sqlColumn(rows, 'text', (r) => r.userAgent)},
      ${sqlColumn(rows, 'text', (r) => r.referer)}, ${sqlColumn(rows, 'text', (r) => r.machineReason)})
      with ordinality as t(link_id, campaign_id, subscriber_id, clicked_at, ip, user_agent, referer, reason, ord)
    order by ord`);
}

export interface DeliveryFirsts {
  id: number;
  firstOpenedAt: Date | null;
  firstHumanOpenedAt: Date | null;
  firstClickedAt: Date | null;
}

export interface NewFirsts {
  readonly id: number;
  readonly open: boolean;
  readonly humanOpen: boolean;
  readonly click: boolean;
}

// Hot, as toMatchedEvent: literal column names.
const toNewFirsts = (row: Row): NewFirsts => ({
  id: Number(row['id']),
  open: row['open'] === true,
  humanOpen: row['human_open'] === true,
  click: row['click'] === true,
});

/**
 * Sets the firsts the batch found where the record has none yet, and answers which this statement set: the unique
 * counts. Exact when several processes flush at once, without a lock of ours: an UPDATE re-reads a row another
 * transaction changed before applying `coalesce` and its condition, so only one of them sets each first (a first
 * equal to the one proposed is taken as ours; only two processes proposing the same millisecond for one record
 * could both count it). Records in id order, so that concurrent flushes queue rather than deadlock.
 */
export async function updateDeliveryFirsts(tx: Executor, rows: readonly DeliveryFirsts[]): Promise<NewFirsts[]> {
  const sorted = [...rows].sort((a, b) => a.id - b.id);
  const optionalTimes = (values: (Date | null)[]) => sqlColumn(values, 'timestamptz', (d) => d?.toISOString() ?? null);
  return queryRows(
    tx,
    sql`update deliveries d set
          first_opened_at = coalesce(d.first_opened_at, u.first_opened_at),
          first_human_opened_at = coalesce(d.first_human_opened_at, u.first_human_opened_at),
          first_clicked_at = coalesce(d.first_clicked_at, u.first_clicked_at)
        from unnest(${sqlColumn(sorted, 'bigint', (r) => r.id)}, ${optionalTimes(sorted.map((r) => r.firstOpenedAt))},
          ${optionalTimes(sorted.map((r) => r.firstHumanOpenedAt))}, ${optionalTimes(sorted.map((r) => r.firstClickedAt))})
          as u(id, first_opened_at, first_human_opened_at, first_clicked_at)
        where d.id = u.id
          and ((d.first_opened_at is null and u.first_opened_at is not null)
            or (d.first_human_opened_at is null and u.first_human_opened_at is not null)
            or (d.first_clicked_at is null and u.first_clicked_at is not null))
        returning d.id, d.first_opened_at is not distinct from u.first_opened_at and u.first_opened_at is not null as open,
          d.first_human_opened_at is not distinct from u.first_human_opened_at and u.first_human_opened_at is not null as human_open,
          d.first_clicked_at is not distinct from u.first_clicked_at and u.first_clicked_at is not null as click`,
    toNewFirsts,
  );
}

export interface LinkClicker {
  linkId: number;
  subscriberId: number;
  at: Date;
}

/**
 * Adds the batch's clicks to each link's `clicks`, and its first clicks by a subscriber (a new link_clickers row:
 * exact under concurrent flushes) to `unique_clicks`. Links in id order, for the same reason as updateDeliveryFirsts.
 */
export async function addLinkClicks(
  tx: Executor,
  perLink: readonly { linkId: number; clicks: number }[],
  clickers: readonly LinkClicker[],
): Promise<void> {
  await tx.execute(sql`
    with firsts as (
      insert into link_clickers (link_id, subscriber_id, first_clicked_at)
      select * from unnest(${sqlColumn(clickers, 'integer', (c) => c.linkId)}, ${sqlColumn(clickers, 'integer', (c) => c.subscriberId)},
        ${times(clickers.map((c) => c.at))})
      order by 1, 2
      on conflict do nothing
      returning link_id
    ), new_clickers as (
      select link_id, count(*) as n from firsts group by link_id
    )
    update links l set clicks = l.clicks + t.clicks, unique_clicks = l.unique_clicks + coalesce(f.n, 0)
    from unnest(${sqlColumn(perLink, 'integer', (l) => l.linkId)}, ${sqlColumn(perLink, 'integer', (l) => l.clicks)}) as t(link_id, clicks)
    left join new_clickers f on f.link_id = t.link_id
    where l.id = t.link_id`);
}

export interface CampaignTally {
  campaignId: number;
  opens: number;
  uniqueOpens: number;
  humanOpens: number;
  uniqueHumanOpens: number;
  clicks: number;
  uniqueClicks: number;
  humanClicks: number;
}

/** Adds the batch's figures to each campaign's counters row (created on first use) and to phpList's `views`. */
export async function addCampaignTallies(tx: Executor, tallies: readonly CampaignTally[]): Promise<void> {
  const column = (pick: (t: CampaignTally) => number) => sqlArray(tallies.map(pick), 'bigint');
  const ids = sqlColumn(tallies, 'integer', (t) => t.campaignId);
  await tx.execute(sql`
    insert into campaign_counters as c
      (campaign_id, opens, unique_opens, human_opens, unique_human_opens, clicks, unique_clicks, human_clicks)
    select * from unnest(${ids}, ${column((t) => t.opens)}, ${column((t) => t.uniqueOpens)}, ${column((t) => t.humanOpens)},
      ${column((t) => t.uniqueHumanOpens)}, ${column((t) => t.clicks)}, ${column((t) => t.uniqueClicks)},
      ${column((t) => t.humanClicks)})
    order by 1
    on conflict (campaign_id) do update set
      opens = c.opens + excluded.opens,
      unique_opens = c.unique_opens + excluded.unique_opens,
      human_opens = c.human_opens + excluded.human_opens,
      unique_human_opens = c.unique_human_opens + excluded.unique_human_opens,
      clicks = c.clicks + excluded.clicks,
      unique_clicks = c.unique_clicks + excluded.unique_clicks,
      human_clicks = c.human_clicks + excluded.human_clicks,
      updated_at = now()`);
  const viewed = tallies.filter((t) => t.opens > 0);
  if (viewed.length === 0) return;
  // phpList's message `views`: every open counts (reference §7.4).
  await tx.execute(sql`
    update campaigns c set views = c.views + v.n
    from unnest(${sqlColumn(viewed, 'integer', (t) => t.campaignId)}, ${sqlColumn(viewed, 'integer', (t) => t.opens)}) as v(id, n)
    where c.id = v.id`);
}

export interface HourTally {
  campaignId: number;
  hour: Date;
  opens: number;
  humanOpens: number;
  clicks: number;
  humanClicks: number;
}

/** Adds the batch's events to the hourly rollup (campaign_hourly_events). */
export async function addHourlyTallies(tx: Executor, tallies: readonly HourTally[]): Promise<void> {
  const column = (pick: (t: HourTally) => number) => sqlArray(tallies.map(pick), 'bigint');
  await tx.execute(sql`
    insert into campaign_hourly_events as h (campaign_id, hour, opens, human_opens, clicks, human_clicks)
    select * from unnest(${sqlColumn(tallies, 'integer', (t) => t.campaignId)}, ${times(tallies.map((t) => t.hour))},
      ${column((t) => t.opens)}, ${column((t) => t.humanOpens)}, ${column((t) => t.clicks)}, ${column((t) => t.humanClicks)})
    order by 1, 2
    on conflict (campaign_id, hour) do update set
      opens = h.opens + excluded.opens,
      human_opens = h.human_opens + excluded.human_opens,
      clicks = h.clicks + excluded.clicks,
      human_clicks = h.human_clicks + excluded.human_clicks`);
}
