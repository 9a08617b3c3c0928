import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { campaignCounters, campaignHourlyEvents, clicks, opens } from '../../src/db/schema/index.js';
import { encodeLinkToken } from '../../src/tracking/link-token.js';
import { createBounce, createCampaign, createDelivery, createLink, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { listWithMembers, sendableCampaign, withWorker } from '../sending/send-fixtures.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const HOUR = 3_600_000;
const BROWSER = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const atomHour = (ms: number) => new Date(Math.floor(ms / HOUR) * HOUR).toISOString().replace(/\.\d{3}Z$/, '+00:00');
const stats = (id: number | string, h = headers) => t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}/stats`, headers: h });

describe('GET /api/v2/campaigns/{messageId}/stats', () => {
  test('deliveries by status, opens and clicks (human and total), per hour and per link', async () => {
    const sentAt = new Date(Date.now() - 3 * HOUR);
    const campaign = await createCampaign(t.db, { status: 'inprocess', sentAt });
    const people = await Promise.all(Array.from({ length: 4 }, () => createSubscriber(t.db)));
    for (const p of people) await createDelivery(t.db, campaign.id, p.id, { sentAt });
    const sending = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, sending.id, { status: 'sending', sentAt: null });
    // The sender's figures: 5 not finished (one of them in flight), 4 sent, 1 failed, 2 skipped; 1 bounce, 3 forwards.
    await t.db.insert(campaignCounters).values({ campaignId: campaign.id, queued: 5, sent: 4, failed: 1, skipped: 2, bounces: 1, forwards: 3 });
    const home = await createLink(t.db, campaign.id, 'https://example.com/');
    const shop = await createLink(t.db, campaign.id, 'https://example.com/shop');
    const token = (linkId: number, subscriberId: number) => encodeLinkToken(t.ctx.secrets.linkToken, { linkId, subscriberId });
    const open = (uid: string, agent = BROWSER) =>
      t.inject({ method: 'GET', url: `/api/v2/t/open.gif?u=${uid}&m=${campaign.id}`, headers: { 'user-agent': agent } });

    await open(people[0]!.uniqueId);
    await open(people[0]!.uniqueId);
    await open(people[1]!.uniqueId, 'Mozilla/5.0');
    await t.inject({ method: 'GET', url: `/lt/${token(home.id, people[2]!.id)}`, headers: { 'user-agent': BROWSER } });
    await t.inject({ method: 'GET', url: `/lt/${token(home.id, people[0]!.id)}`, headers: { 'user-agent': BROWSER } });
    await t.ctx.events.flush();
    // A minute passes before p0's next click (a quicker one on another link would be a scanner's).
    await t.db
      .update(clicks)
      .set({ clickedAt: new Date(Date.now() - 60_000) })
      .where(eq(clicks.campaignId, campaign.id));
    // An hour-old scanner burst on the other subscriber, recorded earlier, for a second hour in the series.
    const earlier = Date.now() - HOUR;
    await t.db
      .insert(clicks)
      .values([{ linkId: home.id, campaignId: campaign.id, subscriberId: people[3]!.id, clickedAt: new Date(earlier), machine: true }]);
    await t.db
      .insert(campaignHourlyEvents)
      .values({ campaignId: campaign.id, hour: new Date(Math.floor(earlier / HOUR) * HOUR), clicks: 2, humanClicks: 0 });
    await t.inject({ method: 'GET', url: `/lt/${token(shop.id, people[0]!.id)}`, headers: { 'user-agent': BROWSER } });
    await t.ctx.events.flush();

    const res = await stats(campaign.id);
    assert.equal(res.statusCode, 200);
    const now = atomHour(Date.now());
    assert.deepEqual(res.json(), {
      campaign_id: campaign.id,
      deliveries: { queued: 4, sending: 1, sent: 4, failed: 1, skipped: 2 },
      // p0 twice, p1 by proxy, p2's click implied one; p0's clicks did not (p0 had opened).
      opens: { total: 4, unique: 3, human: 3, unique_human: 2 },
      clicks: { total: 3, unique: 2, human: 3 },
      bounces: 1,
      forwards: 3,
      opens_per_hour: [{ hour: now, opens: 4, human_opens: 3 }],
      clicks_per_hour: [
        { hour: atomHour(earlier), clicks: 2, human_clicks: 0 },
        { hour: now, clicks: 3, human_clicks: 3 },
      ],
      links: [
        { id: home.id, url: 'https://example.com/', clicks: 2, unique_clicks: 2 },
        { id: shop.id, url: 'https://example.com/shop', clicks: 1, unique_clicks: 1 },
      ],
      sender: { consecutive_failures: 0, paused_reason: null, paused_at: null, relay_unavailable: null },
      outcome: { result: 'in progress', sent: 4, failed: 1, skipped: 2, reason: null },
    });
    assert.equal((await t.db.select().from(opens).where(eq(opens.campaignId, campaign.id))).length, 4);
  });

  test('a campaign with nothing counted yet answers zeros', async () => {
    const campaign = await createCampaign(t.db);
    assert.deepEqual((await stats(campaign.id)).json(), {
      campaign_id: campaign.id,
      deliveries: { queued: 0, sending: 0, sent: 0, failed: 0, skipped: 0 },
      opens: { total: 0, unique: 0, human: 0, unique_human: 0 },
      clicks: { total: 0, unique: 0, human: 0 },
      bounces: 0,
      forwards: 0,
      opens_per_hour: [],
      clicks_per_hour: [],
      links: [],
      sender: { consecutive_failures: 0, paused_reason: null, paused_at: null, relay_unavailable: null },
      outcome: { result: 'in progress', sent: 0, failed: 0, skipped: 0, reason: null },
    });
  });

  describe("outcome: what phpList's `sent` does not say", () => {
    const sendAll = async (count: number, failures: number) => {
      const { list } = await listWithMembers(t.db, count);
      const c = await sendableCampaign(t.db, [list.id]);
      assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers })).statusCode, 200);
      if (failures > 0) t.smtp.failNext(failures, 550, 'No such user here');
      await withWorker(t.ctx, { lanes: 1, concurrency: 1 }, async (w) => {
        for (let i = 0; i < 3; i++) await w.runOnce();
      });
      const campaign = (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}`, headers })).json();
      assert.equal(campaign.message_metadata.status, 'sent', "phpList's status is unchanged");
      return (await stats(c.id)).json();
    };

    test('a campaign whose only delivery failed permanently is `failed`, with the reason', async () => {
      const body = await sendAll(1, 1);
      assert.deepEqual(body.outcome, { result: 'failed', sent: 0, failed: 1, skipped: 0, reason: '550 No such user here' });
      assert.deepEqual(body.deliveries, { queued: 0, sending: 0, sent: 0, failed: 1, skipped: 0 });
    });

    test('some failed: `partially failed`; none failed: `sent`', async () => {
      assert.deepEqual((await sendAll(3, 1)).outcome, {
        result: 'partially failed',
        sent: 2,
        failed: 1,
        skipped: 0,
        reason: '550 No such user here',
      });
      assert.deepEqual((await sendAll(2, 0)).outcome, { result: 'sent', sent: 2, failed: 0, skipped: 0, reason: null });
    });

    test('every record skipped: `none sent`', async () => {
      const campaign = await createCampaign(t.db, { status: 'sent' });
      await t.db.insert(campaignCounters).values({ campaignId: campaign.id, skipped: 2 });
      assert.deepEqual((await stats(campaign.id)).json().outcome, { result: 'none sent', sent: 0, failed: 0, skipped: 2, reason: null });
    });
  });

  test('authentication, then the statistics privilege, then the campaign', async () => {
    const campaign = await createCampaign(t.db);
    const anonymous = await t.inject({ method: 'GET', url: '/api/v2/campaigns/999999/stats' });
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, { message: 'No valid session key was provided as basic auth password.' }]);
    const limited = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await stats(campaign.id, limited.headers);
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to access statistics.' }]);
    const statistician = await t.adminWithSession({ superUser: false, privileges: { statistics: true } });
    assert.equal((await stats(campaign.id, statistician.headers)).statusCode, 200);
    const missing = await stats(999999);
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Campaign not found.' }]);
    assert.equal((await stats('abc')).statusCode, 404);
  });
});

describe('GET /api/v2/campaigns/{messageId}/bounces', () => {
  const list = (id: number | string, query = '', h = headers) =>
    t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}/bounces${query}`, headers: h });

  test("the campaign's bounces by id with the subscriber, in cursor pages; other campaigns' bounces left out", async () => {
    const campaign = await createCampaign(t.db, { subject: 'Bounced news', status: 'sent' });
    const other = await createCampaign(t.db, { status: 'sent' });
    const gone = await createSubscriber(t.db, { email: 'gone@bounce.example' });
    const full = await createSubscriber(t.db, { email: 'full@bounce.example' });
    const receivedAt = new Date('2026-03-04T05:06:07Z');
    const hard = await createBounce(t.db, {
      campaignId: campaign.id,
      subscriberId: gone.id,
      status: 'bounced list message',
      comment: 'Hard bounce: unknown user',
      receivedAt,
    });
    await createBounce(t.db, { campaignId: other.id, subscriberId: gone.id, status: 'bounced list message', receivedAt });
    const soft = await createBounce(t.db, {
      campaignId: campaign.id,
      subscriberId: full.id,
      status: 'bounced list message',
      comment: 'Mailbox full',
      receivedAt,
    });
    const unknown = await createBounce(t.db, { campaignId: campaign.id, status: 'unidentified', receivedAt });
    const item = (b: typeof hard, email: string | null) => ({
      id: b.id,
      status: b.status,
      date: '2026-03-04T05:06:07+00:00',
      message_id: campaign.id,
      message_subject: 'Bounced news',
      subscriber_id: b.subscriberId,
      subscriber_email: email,
      comment: b.comment,
    });

    const first = await list(campaign.id, '?limit=2');
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), {
      items: [item(hard, 'gone@bounce.example'), item(soft, 'full@bounce.example')],
      pagination: { total: 3, limit: 2, has_more: true, next_cursor: soft.id },
    });
    assert.deepEqual((await list(campaign.id, `?limit=2&after_id=${soft.id}`)).json(), {
      items: [item(unknown, null)],
      pagination: { total: 3, limit: 2, has_more: false, next_cursor: unknown.id },
    });
    const none = await createCampaign(t.db);
    assert.deepEqual((await list(none.id)).json(), { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
  });

  test('authentication, then the statistics privilege, then the campaign', async () => {
    const campaign = await createCampaign(t.db);
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/bounces` })).statusCode, 403);
    const limited = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await list(campaign.id, '', limited.headers);
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to access statistics.' }]);
    const missing = await list(999999);
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Campaign not found.' }]);
    assert.equal((await list('abc')).statusCode, 404);
  });
});
