import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/client.js';
import { campaignCounters, campaigns, deliveries, opens } from '../../src/db/schema/index.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const GIF = Buffer.from('R0lGODlhAQABAPAAAAAAAAAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const HOUR = 3_600_000;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

function assertPixel(res: LightMyRequestResponse, what: string) {
  assert.equal(res.statusCode, 200, what);
  assert.equal(res.headers['content-type'], 'image/gif', what);
  assert.equal(res.headers['cache-control'], 'no-store, no-cache, must-revalidate, max-age=0', what);
  assert.equal(res.headers.pragma, 'no-cache', what);
  assert.equal(res.headers.expires, '0', what);
  assert.equal(res.headers['content-length'], '43', what);
  assert.deepEqual(res.rawPayload, GIF, what);
}

const pixel = (query: string, headers: Record<string, string> = { 'user-agent': BROWSER }, path = '/api/v2/t/open.gif') =>
  t.inject({ method: 'GET', url: `${path}${query}`, headers, remoteAddress: '198.51.100.7' });

/** A campaign sent an hour ago to a new subscriber: opens now are a person's unless the requester says otherwise. */
async function sentCampaign(sentAt = new Date(Date.now() - HOUR)) {
  const campaign = await createCampaign(t.db, { status: 'sent', sentAt });
  const subscriber = await createSubscriber(t.db);
  const delivery = await createDelivery(t.db, campaign.id, subscriber.id, { sentAt });
  return { campaign, subscriber, delivery };
}

const opensOf = (campaignId: number) => t.db.select().from(opens).where(eq(opens.campaignId, campaignId)).orderBy(opens.id);
async function countersOf(campaignId: number) {
  const [row] = await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaignId));
  return row;
}

describe('GET /t/open.gif and /api/v2/t/open.gif', () => {
  test('answer the 43-byte GIF with no-store caching at both paths, without a session', async () => {
    for (const path of ['/api/v2/t/open.gif', '/t/open.gif']) {
      assertPixel(await t.inject({ method: 'GET', url: path }), path);
    }
  });

  test('every combination of missing, malformed, unknown and valid u and m answers the pixel; only valid+valid records', async () => {
    const { campaign, subscriber } = await sentCampaign();
    const us = { missing: null, malformed: 'not a uid!', unknown: 'f'.repeat(32), valid: subscriber.uniqueId };
    const ms = { missing: null, malformed: '12abc', unknown: '2147483647', valid: String(campaign.id) };
    let requests = 0;
    for (const path of ['/api/v2/t/open.gif', '/t/open.gif']) {
      for (const [uKind, u] of Object.entries(us)) {
        for (const [mKind, m] of Object.entries(ms)) {
          const params = new URLSearchParams();
          if (u !== null) params.set('u', u);
          if (m !== null) params.set('m', m);
          assertPixel(await pixel(`?${params}`, { 'user-agent': BROWSER }, path), `${path} u ${uKind}, m ${mKind}`);
          requests++;
        }
      }
    }
    assert.equal(requests, 32);
    await t.ctx.events.flush();
    // One valid pair per path.
    assert.equal((await opensOf(campaign.id)).length, 2);
  });

  test('whatever else the query holds, the pixel is answered and nothing is recorded', async () => {
    const { campaign, subscriber } = await sentCampaign();
    const u = subscriber.uniqueId;
    const queries = [
      `?u=${u}&m=0`,
      `?u=${u}&m=-1`,
      `?u=${u}&m=99999999999999999999`,
      `?u=${u}&m=1e3`,
      `?u=${u}&m=%20${campaign.id}`,
      `?u[]=${u}&m=${campaign.id}`,
      `?u=%3Cscript%3E&m=${campaign.id}`,
      `?u=%ZZ&m=%`,
      `?u=${'a'.repeat(5000)}&m=${campaign.id}`,
      `?u=&m=`,
      '?&&==&',
      `?m=${campaign.id}`,
    ];
    for (const query of queries) assertPixel(await pixel(query), query);
    // A repeated parameter counts by its first value.
    assertPixel(await pixel(`?u=${u}&u=other&m=${campaign.id}&m=x`), 'repeated');
    await t.ctx.events.flush();
    assert.equal((await opensOf(campaign.id)).length, 1);
  });

  test('a NUL character in u or m (or a parameter name) still gets the pixel at every path; nothing is recorded (issue 23)', async () => {
    const { campaign, subscriber } = await sentCampaign();
    const u = subscriber.uniqueId;
    const queries = [
      `?u=${u}&m=%00`,
      `?u=%00&m=${campaign.id}`,
      `?u=${u}%00&m=${campaign.id}`,
      `?u=${u}&m=${campaign.id}%00`,
      '?u=%00&m=%00',
      `?u=${u}&m=${campaign.id}&x%00=1`,
    ];
    for (const path of ['/t/open.gif', '/api/v2/t/open.gif']) {
      for (const query of queries) assertPixel(await pixel(query, { 'user-agent': BROWSER }, path), `${path}${query}`);
    }
    await t.ctx.events.flush();
    // The last query's u and m are valid (the NUL is in another parameter's name): one open per path.
    assert.equal((await opensOf(campaign.id)).length, 2);
  });

  test('a subscriber and campaign without a delivery record: pixel, nothing recorded (reference §5.20)', async () => {
    const { campaign } = await sentCampaign();
    const stranger = await createSubscriber(t.db);
    assertPixel(await pixel(`?u=${stranger.uniqueId}&m=${campaign.id}`), 'no delivery');
    await t.ctx.events.flush();
    assert.deepEqual(await opensOf(campaign.id), []);
    assert.equal(await countersOf(campaign.id), undefined);
  });

  test('records user agent, referer and client address; X-Forwarded-For is not trusted by default', async () => {
    const { campaign, subscriber } = await sentCampaign();
    const res = await pixel(`?u=${subscriber.uniqueId}&m=${campaign.id}`, {
      'user-agent': BROWSER,
      referer: 'https://mail.example.net/inbox/<b>1</b>',
      'x-forwarded-for': '203.0.113.1',
    });
    assertPixel(res, 'valid');
    await t.ctx.events.flush();
    const [row] = await opensOf(campaign.id);
    assert.deepEqual(
      { ...row, id: 0, openedAt: null },
      {
        id: 0,
        campaignId: campaign.id,
        subscriberId: subscriber.id,
        openedAt: null,
        ip: '198.51.100.7',
        userAgent: BROWSER,
        referer: 'https://mail.example.net/inbox/1',
        machine: false,
        machineReason: null,
      },
    );
    assert.ok(Math.abs(row!.openedAt.getTime() - Date.now()) < 60_000);
  });

  test('counts every open and each recipient once: total, unique, views, first_opened_at', async () => {
    const { campaign, subscriber, delivery } = await sentCampaign();
    const other = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, other.id, { sentAt: new Date(Date.now() - HOUR) });
    for (let i = 0; i < 3; i++) await pixel(`?u=${subscriber.uniqueId}&m=${campaign.id}`);
    await t.ctx.events.flush();
    await pixel(`?u=${subscriber.uniqueId}&m=${campaign.id}`, { 'user-agent': BROWSER }, '/t/open.gif');
    await pixel(`?u=${other.uniqueId}&m=${campaign.id}`);
    await t.ctx.events.flush();

    const counters = await countersOf(campaign.id);
    assert.deepEqual(
      { opens: counters?.opens, unique: counters?.uniqueOpens, human: counters?.humanOpens, uniqueHuman: counters?.uniqueHumanOpens },
      { opens: 5, unique: 2, human: 5, uniqueHuman: 2 },
    );
    const [row] = await t.db.select({ views: campaigns.views }).from(campaigns).where(eq(campaigns.id, campaign.id));
    assert.equal(row?.views, 5);
    const [first] = await t.db.select().from(deliveries).where(eq(deliveries.id, delivery.id));
    const stored = await opensOf(campaign.id);
    assert.deepEqual(first?.firstOpenedAt, stored[0]!.openedAt);
    assert.deepEqual(first?.firstHumanOpenedAt, stored[0]!.openedAt);
  });
});

describe('machine opens', () => {
  const cases = [
    { name: 'Apple Mail Privacy Protection (bare Mozilla/5.0)', agent: 'Mozilla/5.0', ip: '198.51.100.7', reason: 'apple-privacy-proxy' },
    { name: "Apple's network", agent: BROWSER, ip: '17.58.100.1', reason: 'apple-privacy-proxy' },
    {
      name: "Google's image proxy",
      agent: 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
      ip: '66.249.84.1',
      reason: 'google-image-proxy',
    },
    {
      name: "Yahoo's image proxy",
      agent: 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html',
      ip: '198.51.100.7',
      reason: 'yahoo-image-proxy',
    },
    { name: 'a security scanner', agent: 'Mozilla/5.0 (compatible; Barracuda Sentinel)', ip: '198.51.100.7', reason: 'scanner-user-agent' },
    { name: 'a script', agent: 'python-requests/2.31.0', ip: '198.51.100.7', reason: 'scanner-user-agent' },
  ];
  for (const c of cases) {
    test(`${c.name} is flagged and kept out of the human figures`, async () => {
      const { campaign, subscriber } = await sentCampaign();
      const res = await t.inject({
        method: 'GET',
        url: `/t/open.gif?u=${subscriber.uniqueId}&m=${campaign.id}`,
        headers: { 'user-agent': c.agent },
        remoteAddress: c.ip,
      });
      assertPixel(res, c.name);
      await t.ctx.events.flush();
      const [row] = await opensOf(campaign.id);
      assert.deepEqual({ machine: row?.machine, reason: row?.machineReason }, { machine: true, reason: c.reason });
      const counters = await countersOf(campaign.id);
      assert.deepEqual([counters?.opens, counters?.uniqueOpens, counters?.humanOpens, counters?.uniqueHumanOpens], [1, 1, 0, 0]);
    });
  }

  test('an open within TRACKING_MACHINE_SECONDS of sending is a machine’s; a later one by the same reader is a person’s', async () => {
    const { campaign, subscriber, delivery } = await sentCampaign(new Date());
    await pixel(`?u=${subscriber.uniqueId}&m=${campaign.id}`);
    await t.ctx.events.flush();
    // The reader opens it for real an hour later.
    await t.db
      .update(deliveries)
      .set({ sentAt: new Date(Date.now() - HOUR) })
      .where(eq(deliveries.id, delivery.id));
    await pixel(`?u=${subscriber.uniqueId}&m=${campaign.id}`);
    await t.ctx.events.flush();
    const rows = await opensOf(campaign.id);
    assert.deepEqual(
      rows.map((r) => [r.machine, r.machineReason]),
      [
        [true, 'soon-after-delivery'],
        [false, null],
      ],
    );
    const counters = await countersOf(campaign.id);
    assert.deepEqual([counters?.opens, counters?.uniqueOpens, counters?.humanOpens, counters?.uniqueHumanOpens], [2, 1, 1, 1]);
    const [d] = await t.db.select().from(deliveries).where(eq(deliveries.id, delivery.id));
    assert.deepEqual(d?.firstOpenedAt, rows[0]!.openedAt);
    assert.deepEqual(d?.firstHumanOpenedAt, rows[1]!.openedAt);
  });

  test('an open while the delivery is still being sent is a machine’s', async () => {
    const campaign = await createCampaign(t.db, { status: 'inprocess' });
    const subscriber = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, subscriber.id, { status: 'sending', sentAt: null });
    await pixel(`?u=${subscriber.uniqueId}&m=${campaign.id}`);
    await t.ctx.events.flush();
    const [row] = await opensOf(campaign.id);
    assert.equal(row?.machineReason, 'soon-after-delivery');
  });
});

describe('durability', () => {
  test('a graceful close writes every answered open before the database closes', async () => {
    const { campaign, subscriber } = await sentCampaign();
    let storedWhenClosing = -1;
    const count = async () => {
      const [row] = await t.db
        .select({ n: sql<number>`count(*)::int` })
        .from(opens)
        .where(eq(opens.campaignId, campaign.id));
      return row!.n;
    };
    // The same database under a second app whose close only counts: the test's own app keeps using it afterwards.
    const database: Database = { ...t.database, close: async () => void (storedWhenClosing = await count()) };
    const second = await buildApp({
      config: { ...t.config, tracking: { ...t.config.tracking, flushMs: 60_000, machineSeconds: 2 } },
      database,
      migrate: false,
    });
    await second.ready();
    const answered = await Promise.all(
      Array.from({ length: 25 }, () =>
        second.inject({ method: 'GET', url: `/t/open.gif?u=${subscriber.uniqueId}&m=${campaign.id}`, headers: { 'user-agent': BROWSER } }),
      ),
    );
    assert.ok(answered.every((r) => r.statusCode === 200));
    assert.equal(await count(), 0, 'nothing written yet: the flush interval is a minute');
    assert.equal(second.ctx.events.pending, 25);
    await second.close();
    assert.equal(storedWhenClosing, 25);
  });

  test('two processes flushing opens of one recipient at once count them once in unique', async () => {
    const database: Database = { ...t.database, close: async () => {} };
    const second = await buildApp({
      config: { ...t.config, tracking: { ...t.config.tracking, flushMs: 60_000, machineSeconds: 2 } },
      database,
      migrate: false,
    });
    await second.ready();
    try {
      for (let round = 0; round < 5; round++) {
        const { campaign, subscriber } = await sentCampaign();
        const url = `/t/open.gif?u=${subscriber.uniqueId}&m=${campaign.id}`;
        for (const app of [t.app, second]) await app.inject({ method: 'GET', url, headers: { 'user-agent': BROWSER } });
        await Promise.all([t.ctx.events.flush(), second.ctx.events.flush()]);
        const counters = await countersOf(campaign.id);
        assert.deepEqual([counters?.opens, counters?.uniqueOpens, counters?.uniqueHumanOpens], [2, 1, 1], `round ${round}`);
      }
    } finally {
      await second.close();
    }
  });
});
