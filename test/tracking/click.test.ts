import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { campaignCounters, clicks, deliveries, links, opens } from '../../src/db/schema/index.js';
import { encodeLinkToken } from '../../src/tracking/link-token.js';
import { createCampaign, createDelivery, createLink, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const HOUR = 3_600_000;
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

/** A campaign sent an hour ago to one subscriber, with two tracked links. */
async function scene() {
  const sentAt = new Date(Date.now() - HOUR);
  const campaign = await createCampaign(t.db, { status: 'sent', sentAt });
  const subscriber = await createSubscriber(t.db);
  const delivery = await createDelivery(t.db, campaign.id, subscriber.id, { sentAt });
  const first = await createLink(t.db, campaign.id, 'https://example.com/offer?a=1&b=2');
  const second = await createLink(t.db, campaign.id, 'https://example.com/other');
  const token = (linkId: number, subscriberId = subscriber.id) => encodeLinkToken(t.ctx.secrets.linkToken, { linkId, subscriberId });
  return { campaign, subscriber, delivery, first, second, token };
}

const follow = (path: string, headers: Record<string, string> = { 'user-agent': BROWSER }, remoteAddress = '198.51.100.9') =>
  t.inject({ method: 'GET', url: path, headers, remoteAddress });

async function countersOf(campaignId: number) {
  const [row] = await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaignId));
  return (
    row && {
      opens: row.opens,
      uniqueOpens: row.uniqueOpens,
      humanOpens: row.humanOpens,
      uniqueHumanOpens: row.uniqueHumanOpens,
      clicks: row.clicks,
      uniqueClicks: row.uniqueClicks,
      humanClicks: row.humanClicks,
    }
  );
}
const clicksOf = (campaignId: number) => t.db.select().from(clicks).where(eq(clicks.campaignId, campaignId)).orderBy(clicks.id);
const opensOf = (campaignId: number) => t.db.select().from(opens).where(eq(opens.campaignId, campaignId)).orderBy(opens.id);
const linkOf = async (id: number) => (await t.db.select().from(links).where(eq(links.id, id)))[0];

describe('GET /lt/{token} and GET /api/v2/link-track?id={token}', () => {
  test('redirect (302, not cached) to the stored URL at both paths, without a session', async () => {
    const { first, token } = await scene();
    for (const path of [`/lt/${token(first.id)}`, `/api/v2/link-track?id=${token(first.id)}`]) {
      const res = await follow(path);
      assert.equal(res.statusCode, 302, path);
      assert.equal(res.headers.location, 'https://example.com/offer?a=1&b=2', path);
      assert.equal(res.headers['cache-control'], 'no-store', path);
      assert.equal(res.body, '', path);
    }
  });

  test('record the click with user agent, referer and address, count it per link and campaign, and imply an open', async () => {
    const { campaign, subscriber, delivery, first, token } = await scene();
    await follow(`/lt/${token(first.id)}`, { 'user-agent': BROWSER, referer: 'https://webmail.example.org/' });
    await t.ctx.events.flush();

    const [click] = await clicksOf(campaign.id);
    assert.deepEqual(
      { ...click, id: 0, clickedAt: null },
      {
        id: 0,
        linkId: first.id,
        campaignId: campaign.id,
        subscriberId: subscriber.id,
        clickedAt: null,
        ip: '198.51.100.9',
        userAgent: BROWSER,
        referer: 'https://webmail.example.org/',
        machine: false,
        machineReason: null,
      },
    );
    // Images were blocked: the click is the open.
    const [open] = await opensOf(campaign.id);
    assert.deepEqual(
      { ...open, id: 0 },
      {
        id: 0,
        campaignId: campaign.id,
        subscriberId: subscriber.id,
        openedAt: click!.clickedAt,
        ip: '198.51.100.9',
        userAgent: BROWSER,
        referer: 'https://webmail.example.org/',
        machine: false,
        machineReason: null,
      },
    );
    assert.deepEqual(await countersOf(campaign.id), {
      opens: 1,
      uniqueOpens: 1,
      humanOpens: 1,
      uniqueHumanOpens: 1,
      clicks: 1,
      uniqueClicks: 1,
      humanClicks: 1,
    });
    const [d] = await t.db.select().from(deliveries).where(eq(deliveries.id, delivery.id));
    assert.deepEqual([d?.firstClickedAt, d?.firstOpenedAt, d?.firstHumanOpenedAt], [click!.clickedAt, click!.clickedAt, click!.clickedAt]);
    assert.deepEqual([(await linkOf(first.id))?.clicks, (await linkOf(first.id))?.uniqueClicks], [1, 1]);
  });

  test('repeated clicks count in total, once per recipient and link in unique; an earlier open means no implied one', async () => {
    const { campaign, subscriber, first, second, token } = await scene();
    await t.inject({ method: 'GET', url: `/t/open.gif?u=${subscriber.uniqueId}&m=${campaign.id}`, headers: { 'user-agent': BROWSER } });
    await t.ctx.events.flush();
    await follow(`/lt/${token(first.id)}`);
    await t.ctx.events.flush();
    await follow(`/api/v2/link-track?id=${token(first.id)}`);
    await t.ctx.events.flush();
    // Seconds later, the other link: a person, not a scanner.
    await t.db
      .update(clicks)
      .set({ clickedAt: new Date(Date.now() - 60_000) })
      .where(eq(clicks.campaignId, campaign.id));
    await follow(`/lt/${token(second.id)}`);
    await t.ctx.events.flush();

    assert.equal((await opensOf(campaign.id)).length, 1);
    assert.deepEqual(await countersOf(campaign.id), {
      opens: 1,
      uniqueOpens: 1,
      humanOpens: 1,
      uniqueHumanOpens: 1,
      clicks: 3,
      uniqueClicks: 1,
      humanClicks: 3,
    });
    const [a, b] = [await linkOf(first.id), await linkOf(second.id)];
    assert.deepEqual([a?.clicks, a?.uniqueClicks, b?.clicks, b?.uniqueClicks], [2, 1, 1, 1]);
  });

  test('a person’s click after a privacy proxy’s open implies a person’s open', async () => {
    const { campaign, subscriber, first, token } = await scene();
    await t.inject({ method: 'GET', url: `/t/open.gif?u=${subscriber.uniqueId}&m=${campaign.id}`, headers: { 'user-agent': 'Mozilla/5.0' } });
    await follow(`/lt/${token(first.id)}`);
    await t.ctx.events.flush();
    const rows = await opensOf(campaign.id);
    assert.deepEqual(
      rows.map((r) => r.machineReason),
      ['apple-privacy-proxy', null],
    );
    assert.deepEqual(await countersOf(campaign.id), {
      opens: 2,
      uniqueOpens: 1,
      humanOpens: 1,
      uniqueHumanOpens: 1,
      clicks: 1,
      uniqueClicks: 1,
      humanClicks: 1,
    });
  });

  test('a link scanner (every link of a mail within a second) is flagged, each of its clicks', async () => {
    const { campaign, first, second, token } = await scene();
    // Held in the buffer together…
    await follow(`/lt/${token(first.id)}`);
    await follow(`/lt/${token(second.id)}`);
    await t.ctx.events.flush();
    // …or one already stored when the next comes.
    const other = await scene();
    await follow(`/lt/${other.token(other.first.id)}`);
    await t.ctx.events.flush();
    await follow(`/lt/${other.token(other.second.id)}`);
    await t.ctx.events.flush();

    for (const c of [campaign, other.campaign]) {
      assert.deepEqual((await clicksOf(c.id)).map((r) => [r.machine, r.machineReason]).slice(-1), [[true, 'link-scanner']]);
    }
    assert.deepEqual(
      (await clicksOf(campaign.id)).map((r) => r.machineReason),
      ['link-scanner', 'link-scanner'],
    );
    assert.deepEqual(await countersOf(campaign.id), {
      opens: 1,
      uniqueOpens: 1,
      humanOpens: 0,
      uniqueHumanOpens: 0,
      clicks: 2,
      uniqueClicks: 1,
      humanClicks: 0,
    });
  });

  test('the same link twice in a second is a double click, not a scanner', async () => {
    const { campaign, first, token } = await scene();
    await follow(`/lt/${token(first.id)}`);
    await follow(`/lt/${token(first.id)}`);
    await t.ctx.events.flush();
    assert.deepEqual(
      (await clicksOf(campaign.id)).map((r) => r.machine),
      [false, false],
    );
  });

  test('a scanner’s user agent and a click seconds after sending are machines', async () => {
    const { campaign, delivery, first, token } = await scene();
    await follow(`/lt/${token(first.id)}`, { 'user-agent': 'Mozilla/5.0 (compatible; Proofpoint URL Defense)' });
    await t.ctx.events.flush();
    await t.db.update(deliveries).set({ sentAt: new Date() }).where(eq(deliveries.id, delivery.id));
    await t.db
      .update(clicks)
      .set({ clickedAt: new Date(Date.now() - 60_000) })
      .where(eq(clicks.campaignId, campaign.id));
    await follow(`/lt/${token(first.id)}`);
    await t.ctx.events.flush();
    assert.deepEqual(
      (await clicksOf(campaign.id)).map((r) => r.machineReason),
      ['scanner-user-agent', 'soon-after-delivery'],
    );
  });

  test('a subscriber without a delivery record is redirected, and nothing is recorded', async () => {
    const { campaign, first } = await scene();
    const stranger = await createSubscriber(t.db);
    const res = await follow(`/lt/${encodeLinkToken(t.ctx.secrets.linkToken, { linkId: first.id, subscriberId: stranger.id })}`);
    assert.equal(res.statusCode, 302);
    await t.ctx.events.flush();
    assert.deepEqual(await clicksOf(campaign.id), []);
    assert.equal(await countersOf(campaign.id), undefined);
    assert.deepEqual([(await linkOf(first.id))?.clicks], [0]);
  });

  test('unknown, malformed and forged tokens get the 404 page and record nothing', async () => {
    const { campaign, first, token } = await scene();
    const good = token(first.id);
    const forged = `${good.slice(0, 15)}${good[15] === 'A' ? 'B' : 'A'}`;
    const otherSecret = encodeLinkToken('not the installation secret', { linkId: first.id, subscriberId: 1 });
    const unknownLink = token(2_000_000_000);
    const paths = [
      `/lt/${forged}`,
      `/lt/${otherSecret}`,
      `/lt/${unknownLink}`,
      '/lt/short',
      `/lt/${good}x`,
      `/lt/${'%00'.repeat(16)}`,
      `/api/v2/link-track?id=${forged}`,
      `/api/v2/link-track?id=${unknownLink}`,
      '/api/v2/link-track',
      '/api/v2/link-track?id=',
      '/api/v2/link-track?id[]=x',
    ];
    for (const path of paths) {
      const res = await follow(path);
      assert.equal(res.statusCode, 404, path);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', path);
      // Issue 25: a page in the public pages' layout that says what the reader can do, not one bare sentence.
      assert.match(res.body, /^<!doctype html><html lang="en"><head>.*<link rel="stylesheet" href="\/public\/[^"]+\.css">/, path);
      assert.match(res.body, /<main class="card"><h1>This link does not work<\/h1><p>The address you opened is not complete/, path);
      assert.match(res.body, /Open the mail again and click the link there, or copy the whole address into your browser\./, path);
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'/, path);
    }
    await t.ctx.events.flush();
    assert.deepEqual(await clicksOf(campaign.id), []);
  });

  test('a URL with characters a header cannot carry is sent percent-encoded', async () => {
    const { campaign, token } = await scene();
    const link = await createLink(t.db, campaign.id, 'https://bücher.example/straße?q=ä b');
    const res = await follow(`/lt/${token(link.id)}`);
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, 'https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4%20b');
  });
});

describe('deleting what events refer to', () => {
  test('a subscriber’s and a campaign’s opens and clicks go with them', async () => {
    const { campaign, subscriber, first, token } = await scene();
    const other = await scene();
    await follow(`/lt/${token(first.id)}`);
    await follow(`/lt/${other.token(other.first.id)}`);
    await t.ctx.events.flush();
    const { headers } = await t.adminWithSession();
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${subscriber.id}`, headers })).statusCode, 204);
    assert.deepEqual([(await clicksOf(campaign.id)).length, (await opensOf(campaign.id)).length], [0, 0]);
    assert.deepEqual([(await clicksOf(other.campaign.id)).length, (await opensOf(other.campaign.id)).length], [1, 1]);
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${other.campaign.id}`, headers })).statusCode, 204);
    assert.deepEqual([(await clicksOf(other.campaign.id)).length, (await opensOf(other.campaign.id)).length], [0, 0]);
  });
});
