import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { campaigns } from '../src/db/schema/index.js';
import { superUserSession, type Seed } from './seeds.js';
import { millionMembers } from './subscription.scenarios.js';

/*
 * Seeds of the tracking scenarios, each a few generate_series statements: row-by-row inserts would take longer than
 * the measurement.
 */

export const PIXEL_AUDIENCE = 100_000;

/** `bench-open-<n>`'s uid; the driver computes the same in JS (md5), so the fixture need not carry 100,000 uids. */
export const pixelUid = (n: number) => `bench-open-${n}`;

/**
 * Two campaigns sent a day ago to the same 100,000 subscribers (one delivery record each): the measured one, and
 * one for the warm-up, whose opens are not counted against the requests answered.
 */
export const pixelAudience: Seed<{ campaignId: number; warmupCampaignId: number; audience: number }> = {
  name: 'open-pixel-audience',
  async run(db) {
    const sentAt = new Date(Date.now() - 86_400_000);
    const [measured, warmup] = await db
      .insert(campaigns)
      .values([
        { uniqueId: 'bench-open-pixel-campaign', subject: 'Bench pixel', status: 'sent', sentAt },
        { uniqueId: 'bench-open-pixel-warmup', subject: 'Bench pixel warm-up', status: 'sent', sentAt },
      ])
      .returning({ id: campaigns.id });
    await db.execute(sql`
      insert into subscribers (email, unique_id, confirmed)
      select 'bench-open-' || n || '@mailroom.invalid', md5('bench-open-' || n), true
      from generate_series(1, ${PIXEL_AUDIENCE}) as n`);
    for (const campaign of [measured!, warmup!]) {
      await db.execute(sql`
        insert into deliveries (campaign_id, subscriber_id, status, sent_at, queued_at)
        select ${campaign.id}, id, 'sent', ${sentAt.toISOString()}::timestamptz, ${sentAt.toISOString()}::timestamptz
        from subscribers where email like 'bench-open-%@mailroom.invalid'`);
      await db.execute(sql`insert into campaign_counters (campaign_id, sent) values (${campaign.id}, ${PIXEL_AUDIENCE})`);
    }
    await db.execute(sql`analyze subscribers`);
    await db.execute(sql`analyze deliveries`);
    return { campaignId: measured!.id, warmupCampaignId: warmup!.id, audience: PIXEL_AUDIENCE };
  },
};

export const BIG_DELIVERIES = 1_000_000;
const BIG_OPENS = 1_500_000;
const BIG_CLICKS = 500_000;
const SMALL_CAMPAIGNS = 49;
const LINKS = 10;

/**
 * 50 campaigns; one of them sent to the million subscribers of `millionMembers` (1,000,000 deliveries) with
 * 2,000,000 events (1.5 M opens, 0.5 M clicks on 10 links) over its first two days. Its counters, hourly rollup and
 * link figures are derived from those rows once here, as the flush would have kept them.
 */
export const campaignStatsMillion: Seed<{ sessionKey: string; campaignId: number; firstCampaignId: number }> = {
  name: 'campaign-stats-1m',
  async run(db, use) {
    const { sessionKey } = await use(superUserSession);
    const { firstId, lastId } = await use(millionMembers);
    await db.execute(sql`
      insert into campaigns (unique_id, subject, status, sent_at)
      select md5('bench-stats-' || n), 'Bench campaign ' || n, 'sent', now() - n * interval '1 day'
      from generate_series(1, ${SMALL_CAMPAIGNS}) as n`);
    const [first] = await queryRows<{ id: number }>(db, sql`select min(id)::int as id from campaigns where subject like 'Bench campaign %'`);
    await db.execute(sql`
      insert into campaign_counters (campaign_id, sent, opens, unique_opens, human_opens, unique_human_opens, clicks, unique_clicks, human_clicks)
      select id, 10000, 6000, 4000, 3000, 2500, 900, 500, 800 from campaigns where subject like 'Bench campaign %'`);
    const [big] = await db
      .insert(campaigns)
      .values({ uniqueId: 'bench-stats-million', subject: 'Bench million', status: 'sent', sentAt: new Date(Date.now() - 3 * 86_400_000) })
      .returning({ id: campaigns.id });
    const campaignId = big!.id;
    await db.execute(sql`
      insert into deliveries (campaign_id, subscriber_id, status, sent_at, queued_at)
      select ${campaignId}, id, case when id % 100 = 0 then 'failed' else 'sent' end, now() - interval '3 days', now() - interval '3 days'
      from subscribers where id between ${firstId} and ${lastId}`);
    await db.execute(sql`
      insert into links (campaign_id, url) select ${campaignId}, 'https://example.com/bench/' || n from generate_series(1, ${LINKS}) as n`);
    // Random readers at random times over the two days after sending; a fifth of them flagged as machines.
    await db.execute(sql`
      insert into opens (campaign_id, subscriber_id, opened_at, ip, user_agent, machine, machine_reason)
      select ${campaignId}, ${firstId} + floor(random() * ${BIG_DELIVERIES})::int,
             now() - interval '3 days' + random() * interval '2 days', '198.51.100.1', 'Bench', n % 5 = 0,
             case when n % 5 = 0 then 'apple-privacy-proxy' end
      from generate_series(1, ${BIG_OPENS}) as n`);
    await db.execute(sql`
      insert into clicks (link_id, campaign_id, subscriber_id, clicked_at, ip, user_agent, machine)
      select l.id, ${campaignId}, ${firstId} + floor(random() * ${BIG_DELIVERIES})::int,
             now() - interval '3 days' + random() * interval '2 days', '198.51.100.1', 'Bench', n % 10 = 0
      from generate_series(1, ${BIG_CLICKS}) as n
      join links l on l.campaign_id = ${campaignId} and l.url = 'https://example.com/bench/' || (1 + n % ${LINKS})`);
    await db.execute(sql`
      insert into campaign_counters (campaign_id, sent, failed, opens, unique_opens, human_opens, unique_human_opens,
                                     clicks, unique_clicks, human_clicks)
      select ${campaignId},
        (select count(*) from deliveries where campaign_id = ${campaignId} and status = 'sent'),
        (select count(*) from deliveries where campaign_id = ${campaignId} and status = 'failed'),
        count(*), count(distinct subscriber_id), count(*) filter (where not machine),
        count(distinct subscriber_id) filter (where not machine),
        (select count(*) from clicks where campaign_id = ${campaignId}),
        (select count(distinct subscriber_id) from clicks where campaign_id = ${campaignId}),
        (select count(*) from clicks where campaign_id = ${campaignId} and not machine)
      from opens where campaign_id = ${campaignId}`);
    await db.execute(sql`
      insert into campaign_hourly_events (campaign_id, hour, opens, human_opens, clicks, human_clicks)
      select ${campaignId}, hour, sum(opens), sum(human_opens), sum(clicks), sum(human_clicks) from (
        select date_trunc('hour', opened_at) as hour, count(*) as opens, count(*) filter (where not machine) as human_opens,
               0 as clicks, 0 as human_clicks
        from opens where campaign_id = ${campaignId} group by 1
        union all
        select date_trunc('hour', clicked_at), 0, 0, count(*), count(*) filter (where not machine)
        from clicks where campaign_id = ${campaignId} group by 1
      ) e group by hour`);
    await db.execute(sql`
      update links l set clicks = c.n, unique_clicks = c.u
      from (select link_id, count(*) as n, count(distinct subscriber_id) as u from clicks where campaign_id = ${campaignId} group by 1) c
      where l.id = c.link_id`);
    // Vacuumed and checkpointed now, so that neither autovacuum nor a checkpoint of these millions of new rows runs
    // during the measurement (and the visibility map lets index-only scans skip the heap).
    await db.execute(sql`vacuum (analyze) deliveries, opens, clicks, campaign_counters, campaign_hourly_events, campaigns, links, subscribers`);
    await db.execute(sql`checkpoint`).catch(() => {
      // Needs a superuser (or pg_checkpoint); without it the measurement may just share the machine with one.
    });
    return { sessionKey, campaignId, firstCampaignId: first!.id };
  },
};
