import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asc, eq } from 'drizzle-orm';
import { listCampaigns, subscriberHistory, subscriptions } from '../../src/db/schema/index.js';
import { encodePreferencesToken, PAGE_PREFERENCES_DOMAIN, today } from '../../src/sending/preferences-link.js';
import { seal } from '../../src/public/sealed-token.js';
import { unsubscribeUrl } from '../../src/subscription/unsubscribe-token.js';
import { createCampaign, createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * The unsubscribe page in the public layout (issue 13): the list(s), an optional reason kept in history, the
 * "resubscribe" undo for a week, German by Accept-Language. The ask-then-act flow and RFC 8058 one-click stay as
 * test/sending/unsubscribe.test.ts pins them.
 */

let t: TestApp;
let n = 0;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
before(async () => {
  t = await startTestApp({ preferences: { linkDays: 365, clientLimit: 5 } });
});
after(async () => t?.close());

async function scene() {
  const subscriber = await createSubscriber(t.db, { email: `jo.${++n}@example.com`, confirmed: true });
  const campaign = await createCampaign(t.db, { status: 'sent' });
  const news = await createList(t.db, { name: `News ${campaign.id}` });
  const other = await createList(t.db, { name: `Other ${campaign.id}` });
  await t.db.insert(listCampaigns).values({ campaignId: campaign.id, listId: news.id });
  await subscribe(t.db, news.id, subscriber.id);
  await subscribe(t.db, other.id, subscriber.id);
  return { subscriber, campaign, news, other, path: new URL(unsubscribeUrl(t.ctx, subscriber.uniqueId, campaign.id)).pathname };
}

const listIdsOf = async (id: number) =>
  (
    await t.db.select({ id: subscriptions.listId }).from(subscriptions).where(eq(subscriptions.subscriberId, id)).orderBy(asc(subscriptions.listId))
  ).map((r) => r.id);
const historyOf = async (id: number) =>
  (await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, id)).orderBy(asc(subscriberHistory.id))).map((r) => [
    r.summary,
    r.detail,
  ]);

describe('the unsubscribe page', () => {
  test('asks in the layout, names the list, offers a reason field and the preference centre; headers of a public page', async () => {
    const s = await scene();
    const res = await t.inject({ method: 'GET', url: s.path });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /^<!doctype html><html lang="en">/);
    assert.match(res.body, /<link rel="stylesheet" href="\/public\/style\.[0-9a-f]+\.css">/);
    assert.ok(res.body.includes(`<h1>Unsubscribe j***@example.com from News ${s.campaign.id}?</h1>`), res.body);
    assert.match(res.body, /<textarea id="reason" name="reason" maxlength="1000"/);
    // The page's own short-lived link (PREFERENCES_PAGE_LINK_DAYS), not the mail's year-long one (docs/api.md "Consent").
    const prefs = `${t.config.publicUrl}/preferences/${encodePreferencesToken(t.ctx.secrets.linkToken, s.subscriber.uniqueId, today(), PAGE_PREFERENCES_DOMAIN)}`;
    assert.ok(res.body.includes(`<a href="${prefs}">Manage all your subscriptions</a>`), res.body);
    assert.match(res.headers['content-security-policy'] as string, /script-src 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  test('the preference link on the page lasts PREFERENCES_PAGE_LINK_DAYS (7), the mail link its year', async () => {
    const s = await scene();
    const secret = t.ctx.secrets.linkToken;
    const open = (token: string) => t.inject({ method: 'GET', url: `/preferences/${token}` });
    const page = (daysAgo: number) => encodePreferencesToken(secret, s.subscriber.uniqueId, today() - daysAgo, PAGE_PREFERENCES_DOMAIN);
    assert.equal(t.config.preferencesPageLinkDays, 7);
    assert.equal((await open(page(7))).statusCode, 200);
    const expired = await open(page(8));
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /This link has expired/);
    // The mail's own link of the same age still works: it lasts PREFERENCES_LINK_DAYS.
    assert.equal((await open(encodePreferencesToken(secret, s.subscriber.uniqueId, today() - 8))).statusCode, 200);
  });

  test('the reason goes into the history entry; resubscribe puts back exactly the lists removed, once', async () => {
    const s = await scene();
    const done = await t.inject({
      method: 'POST',
      url: s.path,
      headers: FORM,
      payload: 'confirm=yes&reason=Too+many+mails%0Aper+week%07',
      remoteAddress: '203.0.113.1',
    });
    assert.equal(done.statusCode, 200);
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.other.id]);
    const [entry] = await historyOf(s.subscriber.id);
    assert.equal(
      entry![1],
      `Unsubscribed from "News ${s.campaign.id}" (#${s.news.id}) by the unsubscribe link of campaign ${s.campaign.id} (confirmation page). Reason given: Too many mails\nper week`,
    );
    assert.match(done.body, /Unsubscribed by mistake\? You can undo it for the next 7 days\./);
    const action = /<form method="post" action="(resubscribe\/[A-Za-z0-9_-]+)"/.exec(done.body)![1]!;
    const undo = new URL(action, `http://x${s.path}`).pathname;
    assert.match(undo, /^\/api\/v2\/unsubscribe\/resubscribe\//);

    const back = await t.inject({ method: 'POST', url: undo, headers: FORM, payload: '', remoteAddress: '203.0.113.1' });
    assert.equal(back.statusCode, 200);
    assert.ok(back.body.includes(`<h1>Welcome back</h1><p>j***@example.com is subscribed to News ${s.campaign.id} again.</p>`), back.body);
    assert.deepEqual(
      await listIdsOf(s.subscriber.id),
      [s.news.id, s.other.id].sort((a, b) => a - b),
    );
    const again = await t.inject({ method: 'POST', url: undo, headers: FORM, payload: '', remoteAddress: '203.0.113.1' });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(
      (await historyOf(s.subscriber.id)).map((h) => h[0]),
      ['Unsubscribed', 'Subscribed'],
      'the second undo records nothing',
    );
    assert.equal((await historyOf(s.subscriber.id))[1]![1], `Resubscribed to "News ${s.campaign.id}" (#${s.news.id}) from the unsubscribe page`);
  });

  test('a forged or expired resubscribe link: error pages, nothing changes; the client limit holds', async () => {
    const s = await scene();
    await t.inject({ method: 'POST', url: s.path, headers: FORM, payload: 'List-Unsubscribe=One-Click' });
    const secret = t.ctx.secrets.linkToken;
    const expired = seal(secret, 'resubscribe', [s.subscriber.uniqueId, String(s.news.id)], 7 * 86_400, Date.now() - 8 * 86_400_000);
    const forged = seal('another secret', 'resubscribe', [s.subscriber.uniqueId, String(s.news.id)], 7 * 86_400);
    const otherPurpose = seal(secret, 'email-change', [s.subscriber.uniqueId, String(s.news.id)], 7 * 86_400);
    const ip = '203.0.113.9';
    const post = (token: string) =>
      t.inject({
        method: 'POST',
        url: `/api/v2/unsubscribe/resubscribe/${token}`,
        headers: { ...FORM, 'accept-language': 'de' },
        payload: '',
        remoteAddress: ip,
      });
    const late = await post(expired);
    assert.equal(late.statusCode, 410);
    assert.match(late.body, /Dieser Link ist abgelaufen/);
    for (const token of [forged, otherPurpose, 'abc']) {
      const res = await post(token);
      assert.equal(res.statusCode, 404);
      assert.match(res.body, /Unbekannter Abmeldelink/);
    }
    assert.deepEqual(await listIdsOf(s.subscriber.id), [s.other.id]);
    assert.equal((await post(forged)).statusCode, 404, 'the fifth of five');
    const limited = await post(forged);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
  });

  test('German by Accept-Language; the one-click answer stays plain text', async () => {
    const s = await scene();
    const ask = await t.inject({ method: 'GET', url: s.path, headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    assert.match(ask.body, /<html lang="de">/);
    assert.ok(ask.body.includes(`<h1>j***@example.com von News ${s.campaign.id} abmelden?</h1>`), ask.body);
    const click = await t.inject({
      method: 'POST',
      url: s.path,
      headers: { ...FORM, 'accept-language': 'de' },
      payload: 'List-Unsubscribe=One-Click',
    });
    assert.deepEqual([click.statusCode, click.body], [200, 'Unsubscribed.\n']);
  });
});
