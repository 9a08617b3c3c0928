import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { startWebhookSender, recordWebhookEvent } from '../../src/webhooks/index.js';
import { createCampaign, createList } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { startReceiver, verify, type Receiver } from './receiver.js';

/*
 * Events from the areas to a real HTTP receiver on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=1), sent by the webhook sender
 * driven pass by pass; signatures checked by the receiver's own Standard Webhooks implementation.
 */

let t: TestApp;
let headers: Record<string, string>;
let receiver: Receiver;
let endpoint: { id: number; secret: string };
before(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  headers = (await t.adminWithSession()).headers;
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  // One endpoint per test, the others deleted: each test sees only its own deliveries.
  await t.db.execute(sql`delete from webhook_endpoints`);
  await t.db.execute(sql`delete from webhook_events`);
  receiver.received.length = 0;
  receiver.mode = 'ok';
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/webhooks',
    headers,
    payload: { url: receiver.url, events: ['subscriber.created', 'subscriber.updated', 'campaign.status_changed'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  endpoint = res.json();
});

const count = async (table: 'webhook_events' | 'webhook_deliveries') =>
  (await queryRows(t.db, sql`select count(*)::int as n from ${sql.raw(table)}`, (r) => Number(r['n'])))[0]!;
let n = 0;
const newSubscriber = async () => {
  const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email: `hook-${++n}-${Date.now()}@example.com` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: number; email: string };
};
const deliveries = async (query = '') =>
  (await t.inject({ method: 'GET', url: `/api/v2/webhooks/${endpoint.id}/deliveries${query}`, headers })).json();

describe('webhook delivery', () => {
  test('an event is POSTed once, signed as Standard Webhooks says, and listed as delivered', async () => {
    const subscriber = await newSubscriber();
    const sender = startWebhookSender(t.ctx, { loop: false });
    assert.equal(await sender.runOnce(), 1);
    assert.equal(await sender.runOnce(), 0);
    await sender.stop();
    assert.equal(receiver.received.length, 1);
    const message = receiver.received[0]!;
    assert.ok(verify(endpoint.secret, message), 'signature verifies');
    assert.ok(!verify(`whsec_${Buffer.alloc(32, 9).toString('base64')}`, message), 'another secret does not');
    assert.match(message.id, /^msg_[A-Za-z0-9_-]{24}$/);
    assert.ok(Math.abs(Number(message.timestamp) - Date.now() / 1000) < 30);
    assert.equal(message.headers['content-type'], 'application/json');
    const body = JSON.parse(message.body);
    assert.deepEqual(body, {
      type: 'subscriber.created',
      timestamp: body.timestamp,
      data: {
        subscriber: {
          id: subscriber.id,
          email: subscriber.email,
          unique_id: body.data.subscriber.unique_id,
          confirmed: true,
          blacklisted: false,
          html_email: false,
          disabled: false,
        },
      },
    });
    const page = await deliveries();
    assert.equal(page.items.length, 1);
    assert.deepEqual(
      { ...page.items[0], id: 0, last_attempt_at: 'x', delivered_at: 'x', created_at: 'x' },
      {
        id: 0,
        event_id: message.id,
        type: 'subscriber.created',
        status: 'delivered',
        attempts: 1,
        next_attempt_at: null,
        last_attempt_at: 'x',
        last_status: 204,
        last_response: '',
        last_error: null,
        delivered_at: 'x',
        created_at: 'x',
      },
    );
  });

  test('a receiver down for a while, then back, gets every event exactly once', async () => {
    receiver.mode = 'fail';
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await newSubscriber());
    const sender = startWebhookSender(t.ctx, { loop: false, firstRetrySeconds: 0 });
    for (let pass = 0; pass < 3; pass++) await sender.runOnce();
    assert.equal(receiver.received.length, 15);
    const pending = await deliveries('?status=pending');
    assert.equal(pending.items.length, 5);
    for (const d of pending.items) {
      assert.deepEqual([d.attempts, d.last_status, d.last_response, d.last_error], [3, 503, 'down for maintenance', null]);
    }
    // Every retry of an event carries the same webhook-id.
    assert.equal(new Set(receiver.received.map((m) => m.id)).size, 5);

    receiver.mode = 'ok';
    while ((await sender.runOnce()) > 0);
    await sender.stop();
    const ok = receiver.received.filter((m) => m.mode === 'ok');
    assert.equal(ok.length, 5);
    assert.equal(new Set(ok.map((m) => m.id)).size, 5);
    assert.ok(ok.every((m) => verify(endpoint.secret, m)));
    const emails = ok.map((m) => JSON.parse(m.body).data.subscriber.email).sort();
    assert.deepEqual(emails, made.map((s) => s.email).sort());
    assert.equal((await deliveries('?status=delivered')).items.length, 5);
    // The endpoint's run of failures ended with the first success.
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/webhooks/${endpoint.id}`, headers })).json().failing_since, null);
  });

  test('two senders at once never post the same delivery twice (claims skip locked rows)', async () => {
    for (let i = 0; i < 12; i++) await newSubscriber();
    const a = startWebhookSender(t.ctx, { loop: false });
    const b = startWebhookSender(t.ctx, { loop: false });
    const [x, y] = await Promise.all([a.runOnce(), b.runOnce()]);
    while ((await a.runOnce()) + (await b.runOnce()) > 0);
    await Promise.all([a.stop(), b.stop()]);
    assert.ok(x + y >= 12);
    assert.equal(receiver.received.length, 12);
    assert.equal(new Set(receiver.received.map((m) => m.id)).size, 12);
  });

  test('an event is written in the transaction of its change: rolled back, nothing is written', async () => {
    const before = await count('webhook_events');
    await assert.rejects(
      t.db.transaction(async (tx) => {
        await recordWebhookEvent(tx, 'subscriber.created', { subscriber: { id: 1 } });
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    assert.equal(await count('webhook_events'), before);
    // Committed, it is there with its delivery.
    await t.db.transaction((tx) => recordWebhookEvent(tx, 'subscriber.created', { subscriber: { id: 1 } }));
    assert.equal(await count('webhook_events'), before + 1);
  });

  test('types no endpoint wants write nothing', async () => {
    const events = await count('webhook_events');
    assert.equal(await t.db.transaction((tx) => recordWebhookEvent(tx, 'bounce.recorded', { bounce: { id: 1 } })), null);
    assert.equal(await t.db.transaction((tx) => recordWebhookEvent(tx, 'subscriber.blacklisted', { subscriber: { id: 1 } })), null);
    assert.equal(await count('webhook_events'), events);
  });

  test('a profile change and a campaign status change are reported', async () => {
    const subscriber = await newSubscriber();
    const put = await t.inject({
      method: 'PUT',
      url: `/api/v2/subscribers/${subscriber.id}`,
      headers,
      payload: { email: subscriber.email, html_email: true },
    });
    assert.equal(put.statusCode, 200, put.body);
    const list = await createList(t.db);
    const campaign = await createCampaign(t.db, { subject: 'Hooked', fromField: 'news@example.com', body: '<p>Hi</p>' });
    await t.db.execute(sql`insert into list_campaigns (campaign_id, list_id) values (${campaign.id}, ${list.id})`);
    const patched = await t.inject({ method: 'PATCH', url: `/api/v2/campaigns/${campaign.id}/status`, headers, payload: { status: 'submitted' } });
    assert.ok(patched.statusCode < 300, patched.body);
    const sender = startWebhookSender(t.ctx, { loop: false });
    while ((await sender.runOnce()) > 0);
    await sender.stop();
    const bodies = receiver.received.map((m) => JSON.parse(m.body));
    assert.deepEqual(bodies.map((b) => b.type).sort(), ['campaign.status_changed', 'subscriber.created', 'subscriber.updated']);
    assert.deepEqual(bodies.find((b) => b.type === 'subscriber.updated').data.changed, ['html_email']);
    assert.deepEqual(bodies.find((b) => b.type === 'campaign.status_changed').data, {
      campaign: { id: campaign.id, subject: 'Hooked' },
      from: 'draft',
      to: 'submitted',
    });
  });

  test('after three days of failures a delivery is failed and the endpoint disabled with a reason', async () => {
    receiver.mode = 'fail';
    await newSubscriber();
    await t.db.execute(sql`update webhook_events set created_at = now() - interval '3 days'`);
    const sender = startWebhookSender(t.ctx, { loop: false });
    await sender.runOnce();
    await sender.stop();
    const failed = await deliveries('?status=failed');
    assert.equal(failed.items.length, 1);
    assert.equal(failed.items[0].next_attempt_at, null);
    // The endpoint has failed since more than three days ago: the next pass's housekeeping disables it.
    await t.db.execute(sql`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute'`);
    const next = startWebhookSender(t.ctx, { loop: false });
    await next.runOnce();
    await next.stop();
    const got = (await t.inject({ method: 'GET', url: `/api/v2/webhooks/${endpoint.id}`, headers })).json();
    assert.deepEqual([got.enabled, got.disabled_reason], [false, 'Every delivery failed for three days; enable the endpoint again once it answers.']);
    // Enabled again by hand: the reason goes.
    const again = await t.inject({ method: 'PATCH', url: `/api/v2/webhooks/${endpoint.id}`, headers, payload: { enabled: true } });
    assert.deepEqual([again.json().enabled, again.json().disabled_reason, again.json().failing_since], [true, null, null]);
  });

  test('the ping is signed and answers how the endpoint took it', async () => {
    const res = await t.inject({ method: 'POST', url: `/api/v2/webhooks/${endpoint.id}/test`, headers });
    assert.equal(res.statusCode, 200);
    assert.equal(receiver.received.length, 1);
    assert.ok(verify(endpoint.secret, receiver.received[0]!));
    assert.deepEqual(res.json(), { webhook_id: receiver.received[0]!.id, delivered: true, status: 204, error: null });
    assert.equal(JSON.parse(receiver.received[0]!.body).type, 'webhook.test');
  });
});
