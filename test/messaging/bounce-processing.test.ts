import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { bounces, campaignCounters, deliveries } from '../../src/db/schema/index.js';
import { foldBounceCounts } from '../../src/messaging/bounce-processing.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { arf, dsn, originalMail } from './bounce-samples.js';

/*
 * What processing a bounce does, seen through the API: bounce rules (each action), the consecutive-bounce
 * thresholds (unconfirm at 3, blacklist at 5), hard bounces and complaints, counters and history.
 */

const TOKEN = 'processing-test-token-0123456789';
let t: TestApp;
let admin: Record<string, string>;
before(async () => {
  t = await startTestApp({
    bounces: {
      inboundToken: TOKEN,
      maxSize: 1_048_576,
      mailboxUrl: '',
      pollSeconds: 60,
      processedFolder: 'Processed',
      unconfirmThreshold: 3,
      blacklistThreshold: 5,
    },
  });
  admin = (await t.adminWithSession()).headers;
});
after(() => t.close());

const get = async (url: string) => {
  const res = await t.inject({ method: 'GET', url, headers: admin });
  return { status: res.statusCode, body: res.json() };
};

/** A confirmed subscriber with `campaigns` sent campaigns (oldest first), each with its delivery. */
async function scene(campaigns = 1, subscriber: Partial<Parameters<typeof createSubscriber>[1]> = {}) {
  const s = await createSubscriber(t.db, { confirmed: true, ...subscriber });
  const sent = [];
  for (let i = 0; i < campaigns; i++) {
    const c = await createCampaign(t.db, { status: 'sent' });
    sent.push({ campaign: c, delivery: await createDelivery(t.db, c.id, s.id) });
  }
  return { subscriber: s, sent };
}

type Scene = Awaited<ReturnType<typeof scene>>;

/** Posts a DSN for the scene's n-th delivery; answers the endpoint's body. */
async function bounce(sc: Scene, n = 0, options: { status?: string; diagnostic?: string; action?: string } = {}) {
  const { campaign, delivery } = sc.sent[n]!;
  const original = await originalMail({
    to: sc.subscriber.email,
    deliveryId: delivery.id,
    campaignId: campaign.id,
    subscriberUid: sc.subscriber.uniqueId,
  });
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/bounces/inbound',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
    payload: dsn({ original, recipient: sc.subscriber.email, status: options.status ?? '4.2.2', ...options }),
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json();
}

async function subscriberState(id: number) {
  const { status, body } = await get(`/api/v2/subscribers/${id}`);
  if (status === 404) return null;
  return { confirmed: body.confirmed, blacklisted: body.blacklisted, bounce_count: body.bounce_count };
}

async function historyOf(id: number) {
  const { body } = await get(`/api/v2/subscribers/${id}/history?limit=100`);
  return body.items.map((h: { summary: string; detail: string; system_info: string }) => [h.summary, h.detail, h.system_info]);
}

async function createRule(regex: string, action: string) {
  const res = await t.inject({ method: 'POST', url: '/api/v2/bounces/regex', headers: admin, payload: { regex, action, status: 'active' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as number;
}

/** A rule's match count, once the counts of the bounces recorded so far are folded in. */
async function ruleCount(ruleId: number) {
  await foldBounceCounts(t.ctx);
  return (await get(`/api/v2/bounces/regex/${ruleId}`)).body.count;
}

/** The campaign's bounce figures, once the counts of the bounces recorded so far are folded in. */
async function counters(campaignId: number) {
  await foldBounceCounts(t.ctx);
  const [row] = await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaignId));
  const { body } = await get(`/api/v2/campaigns/${campaignId}`);
  return { counter: row?.bounces ?? 0, campaign: body.message_metadata.bounce_count };
}

describe('hard bounces and complaints', () => {
  test('a hard bounce (5.x.x) blacklists the address at once: one store, history, counts', async () => {
    const sc = await scene();
    const { campaign } = sc.sent[0]!;
    const body = await bounce(sc, 0, { status: '5.1.1' });
    const about = `Hard bounce 5.1.1 (campaign ${campaign.id}, bounce ${body.id})`;
    assert.deepEqual(body.actions, [
      { action: 'counted', reason: `${about}: bounce count + 1` },
      { action: 'blacklisted', reason: about },
    ]);
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: true, bounce_count: 1 });
    const info = await get(`/api/v2/blacklist/info/${encodeURIComponent(sc.subscriber.email)}`);
    assert.equal(info.body.reason, about);
    assert.deepEqual(await historyOf(sc.subscriber.id), [
      [
        'Bounce',
        `Hard bounce 5.1.1: 550 5.1.1 <${sc.subscriber.email}>: Recipient address rejected: User unknown in virtual mailbox table (campaign ${campaign.id}, bounce ${body.id})`,
        'Bounce processing (HTTP)',
      ],
      ['Blacklisted', about, 'Bounce processing (HTTP)'],
    ]);
    assert.deepEqual(await counters(campaign.id), { counter: 1, campaign: 1 });
  });

  test('a complaint (ARF) blacklists at once and is not counted as a bounce', async () => {
    const sc = await scene();
    const { campaign, delivery } = sc.sent[0]!;
    // The returned mail as Mailroom writes it: its delivery header and the subscriber's uid (issue 23: the proof).
    const original = await originalMail({ to: sc.subscriber.email, deliveryId: delivery.id, subscriberUid: sc.subscriber.uniqueId });
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/bounces/inbound',
      headers: { 'x-bounce-token': TOKEN, 'content-type': 'message/rfc822' },
      payload: arf({ original, recipient: sc.subscriber.email }),
    });
    const body = res.json();
    const about = `Complaint (abuse) (campaign ${campaign.id}, bounce ${body.id})`;
    assert.deepEqual(body, {
      id: body.id,
      status: 'complaint',
      kind: 'complaint',
      campaign_id: campaign.id,
      subscriber_id: sc.subscriber.id,
      matched_by: 'delivery',
      rule_id: null,
      duplicate: false,
      actions: [{ action: 'blacklisted', reason: about }],
    });
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: true, bounce_count: 0 });
    assert.equal((await get(`/api/v2/blacklist/info/${encodeURIComponent(sc.subscriber.email)}`)).body.reason, about);
    assert.deepEqual(
      (await historyOf(sc.subscriber.id)).map((h: string[]) => h.slice(0, 2)),
      [
        ['Complaint', `Complaint (feedback type abuse) (campaign ${campaign.id}, bounce ${body.id})`],
        ['Blacklisted', about],
      ],
    );
    assert.deepEqual(await counters(campaign.id), { counter: 0, campaign: 0 });
  });

  test('a "not-spam" report and a "delivered" DSN are stored and change nothing', async () => {
    const sc = await scene(2);
    const original = await originalMail({ to: sc.subscriber.email, deliveryId: sc.sent[0]!.delivery.id });
    const notSpam = await t.inject({
      method: 'POST',
      url: '/api/v2/bounces/inbound',
      headers: { 'x-bounce-token': TOKEN, 'content-type': 'message/rfc822' },
      payload: arf({ original, recipient: sc.subscriber.email, feedbackType: 'not-spam' }),
    });
    assert.equal(notSpam.json().kind, null);
    assert.deepEqual(notSpam.json().actions, []);
    const delivered = await bounce(sc, 1, { status: '2.0.0', action: 'delivered', diagnostic: 'smtp; 250 2.0.0 Ok: queued' });
    assert.equal(delivered.kind, null);
    assert.deepEqual(delivered.actions, []);
    const [row] = await t.db.select().from(bounces).where(eq(bounces.id, delivered.id));
    assert.equal(row!.comment, 'Delivery report (delivered), not a failure');
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 0 });
  });
});

describe('forged bounces (issue 23): a delivery number alone is recorded, never acted on', () => {
  const post = (payload: Buffer | string) =>
    t.inject({ method: 'POST', url: '/api/v2/bounces/inbound', headers: { 'x-bounce-token': TOKEN, 'content-type': 'message/rfc822' }, payload });

  test('a returned part holding only X-Mailroom-Delivery (and the campaign): stored and counted, nobody blacklisted', async () => {
    const sc = await scene();
    const { campaign, delivery } = sc.sent[0]!;
    for (const [i, payload] of [
      dsn({ original: await originalMail({ to: sc.subscriber.email, deliveryId: delivery.id }), recipient: sc.subscriber.email, status: '5.1.1' }),
      arf({
        original: await originalMail({ to: sc.subscriber.email, deliveryId: delivery.id, campaignId: campaign.id }),
        recipient: sc.subscriber.email,
      }),
    ].entries()) {
      const res = await post(payload);
      assert.equal(res.statusCode, 202, res.body);
      const body = res.json();
      assert.equal(body.matched_by, 'delivery');
      assert.equal(body.subscriber_id, sc.subscriber.id);
      assert.deepEqual(
        body.actions.map((a: { action: string }) => a.action),
        i === 0 ? ['counted'] : [],
      );
    }
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 1 });
    assert.equal((await get(`/api/v2/blacklist/info/${encodeURIComponent(sc.subscriber.email)}`)).status, 404);
    const history = await historyOf(sc.subscriber.id);
    assert.equal(history.length, 2);
    for (const [, detail] of history)
      assert.match(detail, /matched only by a delivery number without the subscriber uid or Message-ID, so nothing was done$/);
  });

  test('a rule asking to blacklist does not act on a delivery number alone', async () => {
    const rule = await createRule('/forged-rule-marker/', 'blacklistuser');
    const sc = await scene();
    const original = await originalMail({ to: sc.subscriber.email, deliveryId: sc.sent[0]!.delivery.id });
    const body = (await post(dsn({ original, recipient: sc.subscriber.email, status: '4.2.2', diagnostic: 'forged-rule-marker' }))).json();
    assert.equal(body.rule_id, rule);
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['counted'],
    );
    assert.equal((await subscriberState(sc.subscriber.id))!.blacklisted, false);
    await t.inject({ method: 'DELETE', url: `/api/v2/bounces/regex/${rule}`, headers: admin });
  });

  test("the delivery number with the full Message-ID of that same delivery acts; with another delivery's it does not", async () => {
    const sc = await scene(2);
    const [first, second] = sc.sent;
    const ids = ['<c.proof.1@example.com>', '<c.proof.2@example.com>'];
    await t.db.update(deliveries).set({ messageId: ids[0] }).where(eq(deliveries.id, first!.delivery.id));
    await t.db.update(deliveries).set({ messageId: ids[1] }).where(eq(deliveries.id, second!.delivery.id));
    const wrong = await originalMail({ to: sc.subscriber.email, deliveryId: first!.delivery.id, messageId: ids[1]!.slice(1, -1) });
    const refused = (await post(dsn({ original: wrong, recipient: sc.subscriber.email, status: '5.1.1' }))).json();
    assert.deepEqual(
      refused.actions.map((a: { action: string }) => a.action),
      ['counted'],
    );
    assert.equal((await subscriberState(sc.subscriber.id))!.blacklisted, false);
    const right = await originalMail({ to: sc.subscriber.email, deliveryId: first!.delivery.id, messageId: ids[0]!.slice(1, -1) });
    const acted = (await post(dsn({ original: right, recipient: sc.subscriber.email, status: '5.1.1' }))).json();
    assert.deepEqual(
      acted.actions.map((a: { action: string }) => a.action),
      ['counted', 'blacklisted'],
    );
    assert.equal((await subscriberState(sc.subscriber.id))!.blacklisted, true);
  });
});

describe('consecutive bounces', () => {
  test('3 in a row unconfirm ("Auto unconfirmed"), 5 blacklist; counts go up each time', async () => {
    // Each campaign is sent, then bounces, before the next is sent.
    const sc = await scene(0);
    const sendAndBounce = async () => {
      const c = await createCampaign(t.db, { status: 'sent' });
      sc.sent.push({ campaign: c, delivery: await createDelivery(t.db, c.id, sc.subscriber.id) });
      return bounce(sc, sc.sent.length - 1);
    };
    const expectState = async (confirmed: boolean, blacklisted: boolean, count: number) =>
      assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed, blacklisted, bounce_count: count });
    assert.deepEqual(
      (await sendAndBounce()).actions.map((a: { action: string }) => a.action),
      ['counted'],
    );
    await sendAndBounce();
    await expectState(true, false, 2);
    const third = await sendAndBounce();
    assert.deepEqual(third.actions[1], { action: 'unconfirmed', reason: '3 consecutive bounces, threshold reached' });
    await expectState(false, false, 3);
    assert.deepEqual(
      (await sendAndBounce()).actions.map((a: { action: string }) => a.action),
      ['counted'],
    );
    const fifth = await sendAndBounce();
    assert.deepEqual(fifth.actions[1], { action: 'blacklisted', reason: '5 consecutive bounces, threshold reached' });
    await expectState(false, true, 5);
    const summaries = (await historyOf(sc.subscriber.id)).map((h: string[]) => h[0]);
    assert.deepEqual(summaries, ['Bounce', 'Bounce', 'Bounce', 'Auto unconfirmed', 'Bounce', 'Bounce', 'Blacklisted']);
    assert.equal(
      (await get(`/api/v2/blacklist/info/${encodeURIComponent(sc.subscriber.email)}`)).body.reason,
      '5 consecutive bounces, threshold reached',
    );
  });

  test('a newer delivery that did not bounce breaks the run; two bounces of one delivery count once', async () => {
    const sc = await scene(4);
    await bounce(sc, 0);
    await bounce(sc, 1);
    // Delivery 2 was sent and did not bounce; delivery 3 bounces (twice, two different messages).
    await bounce(sc, 3);
    const again = await bounce(sc, 3);
    assert.equal(again.duplicate, false);
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 4 });
    // Only now does the unbroken run reach 3: deliveries 3 and 2 (a late bounce for 2) and 1.
    const late = await bounce(sc, 2);
    assert.deepEqual(late.actions[1], { action: 'unconfirmed', reason: '4 consecutive bounces, threshold reached' });
  });

  test('a delivery not sent yet is not a delivery that did not bounce', async () => {
    const sc = await scene(3);
    const queued = await createCampaign(t.db, { status: 'submitted' });
    await createDelivery(t.db, queued.id, sc.subscriber.id, { status: 'queued', sentAt: null });
    await bounce(sc, 0);
    await bounce(sc, 1);
    const third = await bounce(sc, 2);
    assert.equal(third.actions[1]?.action, 'unconfirmed');
  });
});

describe('bounce rules', () => {
  /** A scene, a rule whose pattern only this test's diagnostic matches, and the bounce. */
  async function withRule(action: string, subscriber: Partial<Parameters<typeof createSubscriber>[1]> = {}, status = '4.2.2') {
    const marker = `marker-${action}-${Math.random().toString(36).slice(2)}`;
    const ruleId = await createRule(`/mailbox\\s+${marker}/i`, action);
    const sc = await scene(1, subscriber);
    const body = await bounce(sc, 0, { status, diagnostic: `smtp; 452 ${status} Mailbox ${marker.toUpperCase()} is over quota` });
    assert.equal(body.rule_id, ruleId);
    assert.equal(await ruleCount(ruleId), 1);
    const because = `Bounce rule ${ruleId} (${action}) matched Soft bounce ${status} (campaign ${sc.sent[0]!.campaign.id}, bounce ${body.id})`;
    const [stored] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    return { sc, body, because, ruleId, stored };
  }

  test('blacklistuser: the subscriber is blacklisted, the bounce kept and counted', async () => {
    const { sc, body, because, stored } = await withRule('blacklistuser');
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['counted', 'blacklisted'],
    );
    assert.equal(body.actions[1].reason, because);
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: true, bounce_count: 1 });
    assert.equal((await get(`/api/v2/blacklist/info/${encodeURIComponent(sc.subscriber.email)}`)).body.reason, because);
    assert.ok(stored);
    assert.deepEqual(
      (await historyOf(sc.subscriber.id)).map((h: string[]) => h[0]),
      ['Bounce', 'Blacklisted'],
    );
  });

  test('blacklistuseranddeletebounce: blacklisted, and the bounce record deleted', async () => {
    const { sc, body, stored } = await withRule('blacklistuseranddeletebounce');
    assert.equal(stored, undefined);
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['counted', 'blacklisted', 'bounce_deleted'],
    );
    assert.equal((await subscriberState(sc.subscriber.id))!.blacklisted, true);
    assert.equal((await t.db.select().from(bounces).where(eq(bounces.subscriberId, sc.subscriber.id))).length, 0);
  });

  test('blacklistemail: the address is blacklisted; an address no subscriber has (never sent to) is not', async () => {
    const { sc, body } = await withRule('blacklistemail');
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['counted', 'blacklisted'],
    );
    assert.equal((await subscriberState(sc.subscriber.id))!.blacklisted, true);
    const marker = `stranger-${Math.random().toString(36).slice(2)}`;
    const ruleId = await createRule(`/${marker}/`, 'blacklistemail');
    const original = await originalMail({ to: 'stranger@unknown.example' });
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/bounces/inbound',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
      payload: dsn({ original, recipient: 'stranger@unknown.example', status: '4.2.2', diagnostic: `smtp; 452 4.2.2 ${marker}` }),
    });
    assert.equal(res.json().status, 'unidentified');
    assert.equal(res.json().rule_id, ruleId);
    assert.deepEqual(res.json().actions, []);
    // Issue 14: a bounce never acts on an address Mailroom never sent to (anyone can send one naming any address).
    const info = await get('/api/v2/blacklist/info/stranger@unknown.example');
    assert.equal(info.status, 404);
  });

  test('blacklistemailanddeletebounce', async () => {
    const { sc, body, stored } = await withRule('blacklistemailanddeletebounce');
    assert.equal(stored, undefined);
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['counted', 'blacklisted', 'bounce_deleted'],
    );
    assert.equal((await subscriberState(sc.subscriber.id))!.blacklisted, true);
  });

  test('unconfirmuser: unconfirmed with the rule as the reason; bounce kept', async () => {
    const { sc, body, because, stored } = await withRule('unconfirmuser');
    assert.deepEqual(body.actions, [
      { action: 'counted', reason: `Soft bounce 4.2.2 (campaign ${sc.sent[0]!.campaign.id}, bounce ${body.id}): bounce count + 1` },
      { action: 'unconfirmed', reason: because },
    ]);
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: false, blacklisted: false, bounce_count: 1 });
    assert.deepEqual((await historyOf(sc.subscriber.id)).map((h: string[]) => h.slice(0, 2))[1], ['Unconfirmed', because]);
    assert.ok(stored);
  });

  test('unconfirmuseranddeletebounce', async () => {
    const { sc, body, stored } = await withRule('unconfirmuseranddeletebounce');
    assert.equal(stored, undefined);
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['counted', 'unconfirmed', 'bounce_deleted'],
    );
    assert.equal((await subscriberState(sc.subscriber.id))!.confirmed, false);
  });

  test('deleteuser: the subscriber is deleted; the bounce stays, counted for the campaign', async () => {
    const { sc, body, because, stored } = await withRule('deleteuser');
    assert.deepEqual(body.actions, [{ action: 'subscriber_deleted', reason: because }]);
    assert.equal(await subscriberState(sc.subscriber.id), null);
    assert.equal(stored!.subscriberId, null);
    assert.deepEqual(await counters(sc.sent[0]!.campaign.id), { counter: 1, campaign: 1 });
  });

  test('deleteuserandbounce: subscriber and bounce deleted', async () => {
    const { sc, body, stored } = await withRule('deleteuserandbounce');
    assert.equal(stored, undefined);
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['subscriber_deleted', 'bounce_deleted'],
    );
    assert.equal(await subscriberState(sc.subscriber.id), null);
  });

  test('deletebounce: the bounce is dropped and not counted; even a hard bounce then blacklists nothing', async () => {
    const { sc, body, stored } = await withRule('deletebounce', {}, '5.2.2');
    assert.equal(stored, undefined);
    assert.equal(body.kind, 'hard');
    assert.deepEqual(
      body.actions.map((a: { action: string }) => a.action),
      ['bounce_deleted'],
    );
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 0 });
    assert.deepEqual(await counters(sc.sent[0]!.campaign.id), { counter: 0, campaign: 0 });
    assert.deepEqual(
      (await historyOf(sc.subscriber.id)).map((h: string[]) => h[0]),
      ['Bounce'],
    );
  });

  test('a message whose bounce a rule deleted, read again, is a duplicate: nothing done twice', async () => {
    const marker = `again-${Math.random().toString(36).slice(2)}`;
    const ruleId = await createRule(`/${marker}/`, 'unconfirmuseranddeletebounce');
    const sc = await scene();
    const { campaign, delivery } = sc.sent[0]!;
    const original = await originalMail({ to: sc.subscriber.email, deliveryId: delivery.id });
    const message = dsn({ original, recipient: sc.subscriber.email, status: '4.2.2', diagnostic: `smtp; 452 4.2.2 ${marker}` });
    const send = () =>
      t.inject({ method: 'POST', url: '/api/v2/bounces/inbound', headers: { 'x-bounce-token': TOKEN }, payload: message }).then((r) => r.json());
    const first = await send();
    await t.inject({
      method: 'PUT',
      url: `/api/v2/subscribers/${sc.subscriber.id}`,
      headers: admin,
      payload: { email: sc.subscriber.email, confirmed: true },
    });
    const second = await send();
    assert.deepEqual(second, {
      id: first.id,
      status: 'bounced list message',
      kind: 'soft',
      campaign_id: campaign.id,
      subscriber_id: sc.subscriber.id,
      matched_by: 'delivery',
      rule_id: null,
      duplicate: true,
      actions: [],
    });
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 1 });
    assert.equal(await ruleCount(ruleId), 1);
    assert.deepEqual(await counters(campaign.id), { counter: 1, campaign: 1 });
  });

  test('decreasecountconfirmuseranddeletebounce: not counted, the subscriber confirmed, the bounce dropped', async () => {
    const { sc, body, because, stored } = await withRule('decreasecountconfirmuseranddeletebounce', { confirmed: false });
    assert.equal(stored, undefined);
    assert.deepEqual(body.actions, [
      { action: 'confirmed', reason: because },
      { action: 'bounce_deleted', reason: `Bounce rule ${body.rule_id} (decreasecountconfirmuseranddeletebounce)` },
    ]);
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 0 });
  });

  test('only the first matching active rule applies (list_order); inactive rules never', async () => {
    const marker = `order-${Math.random().toString(36).slice(2)}`;
    const make = async (action: string, list_order: number, status: string) => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v2/bounces/regex',
        headers: admin,
        payload: { regex: `/${marker}.*${list_order}/`, action, status, list_order },
      });
      return res.json().id as number;
    };
    const inactive = await make('deleteuser', -5, 'invite');
    const first = await make('unconfirmuser', 1, 'active');
    const second = await make('blacklistuser', 2, 'active');
    const sc = await scene();
    const body = await bounce(sc, 0, { diagnostic: `smtp; 452 4.2.2 ${marker} -5 1 2` });
    assert.equal(body.rule_id, first);
    assert.deepEqual(await subscriberState(sc.subscriber.id), { confirmed: false, blacklisted: false, bounce_count: 1 });
    assert.equal(await ruleCount(second), 0);
    assert.equal(await ruleCount(inactive), 0);
  });
});

describe('counters', () => {
  test('each bounce of a campaign adds to its bounce count and counters row; GET /bounces shows them', async () => {
    const campaign = await createCampaign(t.db, { status: 'sent', subject: 'Counted' });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await createSubscriber(t.db, { confirmed: true });
      const d = await createDelivery(t.db, campaign.id, s.id);
      const body = await bounce({ subscriber: s, sent: [{ campaign, delivery: d }] });
      ids.push(body.id);
    }
    assert.deepEqual(await counters(campaign.id), { counter: 3, campaign: 3 });
    const { body } = await get('/api/v2/bounces/by/campaign');
    assert.deepEqual(
      body.find((r: { message_id: number }) => r.message_id === campaign.id),
      { message_id: campaign.id, subject: 'Counted', total_bounces: 3 },
    );
    const list = await get(`/api/v2/bounces?after_id=${ids[0]! - 1}&limit=1`);
    assert.equal(list.body.items[0].message_subject, 'Counted');
    assert.equal(list.body.items[0].status, 'bounced list message');
  });
});
