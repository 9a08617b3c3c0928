import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { campaignCounters, deliveries, listCampaigns, subscriberHistory, subscribers, subscriptions } from '../../src/db/schema/index.js';
import { encodeUnsubscribeToken, unsubscribeUrl } from '../../src/subscription/unsubscribe-token.js';
import { encodeLinkToken } from '../../src/tracking/link-token.js';
import { createCampaign, createDelivery, createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ publicUrl: 'https://lists.example.org' });
});
after(() => t.close());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const INVALID_TITLE = '<h1>Unknown unsubscribe link</h1>';

interface Scene {
  subscriber: Awaited<ReturnType<typeof createSubscriber>>;
  other: Awaited<ReturnType<typeof createSubscriber>>;
  campaign: Awaited<ReturnType<typeof createCampaign>>;
  lists: { news: number; offers: number; elsewhere: number };
  path: string;
}

/**
 * A campaign sent to "News & <Views>" and "Offers"; the subscriber is on both and on a third list the campaign was
 * not sent to; their delivery of the campaign is still queued, as is another subscriber's.
 */
async function scene(email = `jane.${randomBytes(3).toString('hex')}@example.com`): Promise<Scene> {
  const subscriber = await createSubscriber(t.db, { email, confirmed: true });
  const other = await createSubscriber(t.db, { confirmed: true });
  const campaign = await createCampaign(t.db, { status: 'inprocess' });
  const news = await createList(t.db, { name: `News & <Views> ${campaign.id}` });
  const offers = await createList(t.db, { name: `Offers ${campaign.id}` });
  const elsewhere = await createList(t.db, { name: `Elsewhere ${campaign.id}` });
  await t.db.insert(listCampaigns).values([
    { campaignId: campaign.id, listId: news.id },
    { campaignId: campaign.id, listId: offers.id },
  ]);
  for (const list of [news, offers, elsewhere]) await subscribe(t.db, list.id, subscriber.id);
  await subscribe(t.db, news.id, other.id);
  await createDelivery(t.db, campaign.id, subscriber.id, { status: 'queued', sentAt: null });
  await createDelivery(t.db, campaign.id, other.id, { status: 'queued', sentAt: null });
  await t.db.insert(campaignCounters).values({ campaignId: campaign.id, queued: 2 });
  const url = new URL(unsubscribeUrl(t.ctx, subscriber.uniqueId, campaign.id));
  return { subscriber, other, campaign, lists: { news: news.id, offers: offers.id, elsewhere: elsewhere.id }, path: url.pathname };
}

async function listIdsOf(subscriberId: number): Promise<number[]> {
  const rows = await t.db
    .select({ listId: subscriptions.listId })
    .from(subscriptions)
    .where(eq(subscriptions.subscriberId, subscriberId))
    .orderBy(asc(subscriptions.listId));
  return rows.map((r) => r.listId);
}

async function deliveryOf(campaignId: number, subscriberId: number) {
  const [row] = await t.db
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.campaignId, campaignId), eq(deliveries.subscriberId, subscriberId)));
  return row!;
}

const historyOf = (subscriberId: number) =>
  t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, subscriberId)).orderBy(asc(subscriberHistory.id));

async function countersOf(campaignId: number) {
  const [row] = await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaignId));
  return { queued: row!.queued, skipped: row!.skipped };
}

describe('the unsubscribe link', () => {
  let s: Scene;
  beforeEach(async () => {
    s = await scene();
  });

  test('is PUBLIC_URL/api/v2/unsubscribe/<44-character token>', () => {
    const url = unsubscribeUrl(t.ctx, s.subscriber.uniqueId, s.campaign.id);
    assert.match(url, /^https:\/\/lists\.example\.org\/api\/v2\/unsubscribe\/[A-Za-z0-9_-]{44}$/);
  });

  test('GET shows a confirmation page and changes nothing', async () => {
    const res = await t.inject({ method: 'GET', url: s.path, headers: { 'user-agent': 'LinkScanner/1.0' } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    const masked = `j***@example.com`;
    assert.ok(res.body.includes(`<h1>Unsubscribe ${masked} from News &amp; &lt;Views&gt; ${s.campaign.id}, Offers ${s.campaign.id}?</h1>`), res.body);
    assert.ok(res.body.includes('<form method="post"><input type="hidden" name="confirm" value="yes">'));
    assert.ok(!res.body.includes(s.subscriber.email), 'the full address is not shown');
    assert.ok(!res.body.includes(`Elsewhere`), 'lists the campaign was not sent to are not offered');

    const head = await t.inject({ method: 'HEAD', url: s.path });
    assert.equal(head.statusCode, 200);

    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.news, s.lists.offers, s.lists.elsewhere]);
    assert.equal((await deliveryOf(s.campaign.id, s.subscriber.id)).status, 'queued');
    assert.deepEqual(await historyOf(s.subscriber.id), []);
    assert.deepEqual(await countersOf(s.campaign.id), { queued: 2, skipped: 0 });
  });

  test('one-click POST (RFC 8058) unsubscribes from the campaign lists only, skips the queued mail, is idempotent', async () => {
    const res = await t.inject({
      method: 'POST',
      url: s.path,
      headers: { ...FORM, 'user-agent': 'MailClient/2.0' },
      payload: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; charset=utf-8/);
    assert.equal(res.body, 'Unsubscribed.\n');

    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.elsewhere]);
    assert.deepEqual(await listIdsOf(s.other.id), [s.lists.news], 'other subscribers keep their subscriptions');

    const history = await historyOf(s.subscriber.id);
    assert.deepEqual(
      history.map((h) => [h.summary, h.detail, h.systemInfo]),
      [
        [
          'Unsubscribed',
          `Unsubscribed from "News & <Views> ${s.campaign.id}" (#${s.lists.news}), "Offers ${s.campaign.id}" (#${s.lists.offers})` +
            ` by the unsubscribe link of campaign ${s.campaign.id} (one-click, RFC 8058); its queued mail of this campaign was skipped`,
          'User-Agent: MailClient/2.0',
        ],
      ],
    );

    const mine = await deliveryOf(s.campaign.id, s.subscriber.id);
    assert.deepEqual([mine.status, mine.lastResponse], ['skipped', `Unsubscribed by the unsubscribe link of campaign ${s.campaign.id}`]);
    assert.equal((await deliveryOf(s.campaign.id, s.other.id)).status, 'queued', "another subscriber's mail still goes");
    assert.deepEqual(await countersOf(s.campaign.id), { queued: 1, skipped: 1 });

    const again = await t.inject({ method: 'POST', url: s.path, headers: FORM, payload: 'List-Unsubscribe=One-Click' });
    assert.deepEqual([again.statusCode, again.body], [200, 'Unsubscribed.\n']);
    assert.equal((await historyOf(s.subscriber.id)).length, 1, 'nothing more is recorded');
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.elsewhere]);
    assert.deepEqual(await countersOf(s.campaign.id), { queued: 1, skipped: 1 });

    const page = await t.inject({ method: 'GET', url: s.path });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes('<h1>Nothing to unsubscribe</h1>'), page.body);
    assert.ok(!page.body.includes('<form'));
  });

  test("the page's form POST answers with a page", async () => {
    const res = await t.inject({ method: 'POST', url: s.path, headers: FORM, payload: 'confirm=yes' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.ok(
      res.body.includes(
        `<h1>You are unsubscribed</h1><p>j***@example.com has been unsubscribed from News &amp; &lt;Views&gt; ${s.campaign.id}, Offers ${s.campaign.id}.</p>`,
      ),
      res.body,
    );
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.elsewhere]);
    const [entry] = await historyOf(s.subscriber.id);
    assert.match(entry!.detail!, /\(confirmation page\); its queued mail of this campaign was skipped$/);

    const again = await t.inject({ method: 'POST', url: s.path, headers: FORM, payload: 'confirm=yes' });
    assert.equal(again.statusCode, 200);
    assert.ok(again.body.includes('j***@example.com is not on any list this campaign was sent to.'), again.body);
  });

  test('a POST without a body, or with one that is not a form, unsubscribes too', async () => {
    const empty = await t.inject({ method: 'POST', url: s.path });
    assert.deepEqual([empty.statusCode, empty.body], [200, 'Unsubscribed.\n']);
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.elsewhere]);

    const second = await scene();
    const json = await t.inject({
      method: 'POST',
      url: second.path,
      headers: { 'content-type': 'application/json', accept: 'text/html,application/xhtml+xml' },
      payload: '{"not json',
    });
    assert.equal(json.statusCode, 200, 'a malformed body is no 400 here');
    assert.match(String(json.headers['content-type']), /^text\/html/, 'a browser gets a page');
    assert.deepEqual(await listIdsOf(second.subscriber.id), [second.lists.elsewhere]);
  });
});

describe('links that do not name a subscriber and campaign', () => {
  test('forged, garbled or outdated tokens get the 404 page, on GET and POST, and change nothing', async () => {
    const s = await scene();
    const token = s.path.split('/').pop()!;
    const flipped = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    const otherSecret = encodeUnsubscribeToken('another installation', { uniqueId: s.subscriber.uniqueId, campaignId: s.campaign.id });
    const linkToken = encodeLinkToken(t.ctx.secrets.linkToken, { linkId: s.campaign.id, subscriberId: s.subscriber.id });
    const unknownCampaign = encodeUnsubscribeToken(t.ctx.secrets.linkToken, { uniqueId: s.subscriber.uniqueId, campaignId: 2_000_000 });
    const unknownSubscriber = encodeUnsubscribeToken(t.ctx.secrets.linkToken, { uniqueId: 'f'.repeat(32), campaignId: s.campaign.id });
    const tokens = [
      flipped,
      `${token}A`,
      token.slice(0, -1),
      otherSecret,
      linkToken,
      unknownCampaign,
      unknownSubscriber,
      'abc',
      '%E2%9C%93%00',
      'x'.repeat(400),
    ];
    for (const bad of tokens) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await t.inject({
          method,
          url: `/api/v2/unsubscribe/${bad}`,
          headers: FORM,
          payload: method === 'POST' ? 'List-Unsubscribe=One-Click' : undefined,
        });
        assert.equal(res.statusCode, 404, `${method} ${bad}`);
        assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
        assert.ok(res.body.includes(INVALID_TITLE), res.body);
      }
    }
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.news, s.lists.offers, s.lists.elsewhere]);
    assert.equal((await deliveryOf(s.campaign.id, s.subscriber.id)).status, 'queued');
  });

  test("a deleted subscriber's link is unknown", async () => {
    const s = await scene();
    await t.db.delete(subscribers).where(eq(subscribers.id, s.subscriber.id));
    const res = await t.inject({ method: 'POST', url: s.path, headers: FORM, payload: 'List-Unsubscribe=One-Click' });
    assert.equal(res.statusCode, 404);
  });

  test('the link in a forwarded copy says its reader is not subscribed', async () => {
    const s = await scene();
    const path = new URL(unsubscribeUrl(t.ctx, 'forwarded', s.campaign.id)).pathname;
    const page = await t.inject({ method: 'GET', url: path });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes('This message was forwarded to you by a subscriber.'), page.body);
    const click = await t.inject({ method: 'POST', url: path, headers: FORM, payload: 'List-Unsubscribe=One-Click' });
    assert.deepEqual([click.statusCode, click.body], [200, 'Not subscribed.\n']);
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.news, s.lists.offers, s.lists.elsewhere]);
  });

  test('unique ids that are not 32 hex characters (imported from elsewhere) work too', async () => {
    const s = await scene();
    await t.db.update(subscribers).set({ uniqueId: 'Legacy-UID_42' }).where(eq(subscribers.id, s.subscriber.id));
    const url = new URL(unsubscribeUrl(t.ctx, 'Legacy-UID_42', s.campaign.id));
    const res = await t.inject({ method: 'POST', url: url.pathname });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.lists.elsewhere]);
  });
});

describe('form bodies elsewhere', () => {
  test('the rest of the API still reads JSON whatever the content type says', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/sessions',
      headers: FORM,
      payload: JSON.stringify({ login_name: 'nobody', password: 'wrong password' }),
    });
    assert.equal(res.statusCode, 401, res.body);
    const bad = await t.inject({ method: 'POST', url: '/api/v2/sessions', headers: FORM, payload: 'List-Unsubscribe=One-Click' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /^Invalid JSON/);
  });
});
