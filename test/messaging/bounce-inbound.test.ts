import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { bounceReceipts, bounces, campaignCounters } from '../../src/db/schema/index.js';
import { foldBounceCounts } from '../../src/messaging/bounce-processing.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { arf, dsn, originalMail, plainBounce } from './bounce-samples.js';

const TOKEN = 'inbound-test-token-0123456789';
let t: TestApp;
before(async () => {
  t = await startTestApp({
    bounces: {
      inboundToken: TOKEN,
      maxSize: 64 * 1024,
      mailboxUrl: '',
      pollSeconds: 60,
      processedFolder: 'Processed',
      unconfirmThreshold: 3,
      blacklistThreshold: 5,
    },
  });
});
after(() => t.close());

const post = (body: Buffer | string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' }) =>
  t.inject({ method: 'POST', url: '/api/v2/bounces/inbound', headers, payload: body });

/** A subscriber, a sent campaign and the delivery between them, plus the mail the sender wrote for it. */
async function scene(options: { messageId?: string } = {}) {
  const subscriber = await createSubscriber(t.db, { confirmed: true });
  const campaign = await createCampaign(t.db, { status: 'sent' });
  const messageId = options.messageId ?? `c${campaign.id}.s${subscriber.id}.0badc0de@example.com`;
  const delivery = await createDelivery(t.db, campaign.id, subscriber.id, { messageId: `<${messageId}>` });
  return { subscriber, campaign, delivery, messageId };
}

describe('POST /bounces/inbound: its token', () => {
  test('no token, a wrong one, or one in the wrong place → 403; nothing stored', async () => {
    const { subscriber } = await scene();
    const body = dsn({ original: await originalMail({ to: subscriber.email }), recipient: subscriber.email });
    const denied = {
      message: 'A valid bounce token is required, as "Authorization: Bearer <token>" or "X-Bounce-Token: <token>".',
    };
    for (const headers of [
      { 'content-type': 'message/rfc822' } as Record<string, string>,
      { 'content-type': 'message/rfc822', authorization: `Bearer ${TOKEN}x` },
      { 'content-type': 'message/rfc822', 'x-bounce-token': TOKEN.slice(0, -1) },
      { 'content-type': 'message/rfc822', 'php-auth-pw': TOKEN },
      { 'content-type': 'message/rfc822', authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
    ]) {
      const res = await post(body, headers);
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
      assert.deepEqual(res.json(), denied);
    }
    // An administrator's session is no bounce token either.
    const { headers } = await t.adminWithSession();
    assert.equal((await post(body, { ...headers, 'content-type': 'message/rfc822' })).statusCode, 403);
    assert.equal((await t.db.select().from(bounces)).filter((b) => b.subscriberId === subscriber.id).length, 0);
  });

  test('the token as X-Bounce-Token, and without any content type → 202', async () => {
    const { subscriber } = await scene();
    const body = dsn({ original: await originalMail({ to: subscriber.email }), recipient: subscriber.email, status: '4.2.2' });
    const res = await post(body, { 'x-bounce-token': TOKEN });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().subscriber_id, subscriber.id);
  });

  test('without a configured token the endpoint is off: 404 whatever is sent', async () => {
    const off = await startTestApp();
    try {
      const res = await off.inject({
        method: 'POST',
        url: '/api/v2/bounces/inbound',
        headers: { authorization: 'Bearer anything-at-all-here', 'content-type': 'message/rfc822' },
        payload: 'From: a@b.c\r\n\r\nx',
      });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { message: 'Receiving bounces over HTTP is off: set BOUNCE_INBOUND_TOKEN to turn it on.' });
    } finally {
      await off.close();
    }
  });
});

describe('POST /bounces/inbound: what it accepts', () => {
  test('garbage → 422 saying what is wrong, never 500; nothing stored', async () => {
    const before = (await t.db.select().from(bounces)).length;
    const cases: [string | Buffer, string][] = [
      ['', 'Send the bounce message itself (RFC 5322) as the request body.'],
      ['   \r\n\r\n', 'The message is empty.'],
      ['{"message":"not mail"}', 'Line 1 of the message header is not a header field ("Name: value").'],
      ['hello world, this is not an e-mail', 'Line 1 of the message header is not a header field ("Name: value").'],
      [Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0a, 0x0a, 0x01]), 'Line 1 of the message header is not a header field ("Name: value").'],
      ['Subject: hi\r\nX-Thing: 1\r\n\r\nbody', 'The message has no From, Date, Message-ID, Received or Return-Path header: it is not an e-mail.'],
      ['From: a@example.com\r\nthis line is no field\r\n\r\nbody', 'Line 2 of the message header is not a header field ("Name: value").'],
      ['  indented: first\r\nFrom: a@example.com\r\n\r\n', 'The message starts with an indented line, not a header field.'],
    ];
    for (const [body, message] of cases) {
      const res = await post(body, { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' });
      assert.equal(res.statusCode, 422, String(body));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors: { body: [message] } });
    }
    assert.equal((await t.db.select().from(bounces)).length, before);
  });

  test('a JSON or form body is refused with 415; a body over BOUNCE_MAX_SIZE with 413', async () => {
    const json = await post('{"a":1}', { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' });
    assert.equal(json.statusCode, 415);
    assert.match(json.json().message, /^Unsupported content type: send the message as message\/rfc822, text\/plain, application\/octet-stream\.$/);
    const big = `From: a@example.com\r\nSubject: big\r\n\r\n${'x'.repeat(70 * 1024)}`;
    const res = await post(big, { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' });
    assert.equal(res.statusCode, 413);
    assert.match(res.json().message, /too large/);
  });

  test('a valid mail that is no bounce at all is stored as unidentified, nothing else done', async () => {
    const res = await post(
      'From: someone@example.org\r\nTo: bounces@example.com\r\nSubject: hello\r\nMessage-ID: <hello-1@example.org>\r\n\r\nJust saying hi.\r\n',
    );
    assert.equal(res.statusCode, 202);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      status: 'unidentified',
      kind: 'unknown',
      campaign_id: null,
      subscriber_id: null,
      matched_by: null,
      rule_id: null,
      duplicate: false,
      actions: [],
    });
    const [row] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(row!.messageId, '<hello-1@example.org>');
    assert.equal(row!.comment, 'Bounce without a status code');
  });
});

describe('POST /bounces/inbound: matching the bounce to what was sent', () => {
  test('by X-Mailroom-Delivery, the other headers agreeing', async () => {
    const { subscriber, campaign, delivery } = await scene();
    const original = await originalMail({
      to: subscriber.email,
      deliveryId: delivery.id,
      campaignId: campaign.id,
      subscriberUid: subscriber.uniqueId,
    });
    const res = await post(dsn({ original, recipient: 'forwarded@elsewhere.example', status: '4.2.2' }));
    assert.equal(res.statusCode, 202);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      status: 'bounced list message',
      kind: 'soft',
      campaign_id: campaign.id,
      subscriber_id: subscriber.id,
      matched_by: 'delivery',
      rule_id: null,
      duplicate: false,
      actions: [{ action: 'counted', reason: `Soft bounce 4.2.2 (campaign ${campaign.id}, bounce ${body.id}): bounce count + 1` }],
    });
    const [row] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(row!.deliveryId, delivery.id);
    assert.equal(row!.kind, 'soft');
  });

  test('a delivery id the other headers contradict is not trusted: campaign + subscriber decide', async () => {
    const a = await scene();
    const b = await scene();
    const original = await originalMail({
      to: b.subscriber.email,
      deliveryId: a.delivery.id,
      campaignId: b.campaign.id,
      subscriberUid: b.subscriber.uniqueId,
    });
    const body = (await post(dsn({ original, recipient: b.subscriber.email, status: '4.4.1' }))).json();
    assert.equal(body.matched_by, 'campaign_subscriber');
    assert.equal(body.campaign_id, b.campaign.id);
    assert.equal(body.subscriber_id, b.subscriber.id);
    const [row] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(row!.deliveryId, b.delivery.id);
  });

  test('by X-Mailroom-Campaign + X-Mailroom-Subscriber without a delivery (a test send)', async () => {
    const subscriber = await createSubscriber(t.db);
    const campaign = await createCampaign(t.db);
    const original = await originalMail({ to: subscriber.email, campaignId: campaign.id, subscriberUid: subscriber.uniqueId });
    const body = (await post(dsn({ original, recipient: subscriber.email, status: '4.2.1', fullMessage: true }))).json();
    assert.equal(body.matched_by, 'campaign_subscriber');
    assert.equal(body.status, 'bounced list message');
    assert.equal(body.campaign_id, campaign.id);
    const [row] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(row!.deliveryId, null);
  });

  test('by the returned Message-ID alone (a base64-encoded returned message)', async () => {
    const { subscriber, campaign, delivery, messageId } = await scene();
    const original = await originalMail({ to: subscriber.email, messageId });
    const body = (await post(dsn({ original, recipient: 'someone-else@example.net', status: '4.3.0', fullMessage: true, base64: true }))).json();
    assert.equal(body.matched_by, 'message_id');
    assert.equal(body.campaign_id, campaign.id);
    assert.equal(body.subscriber_id, subscriber.id);
    const [row] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(row!.deliveryId, delivery.id);
  });

  test('by the failed address (Final-Recipient) when nothing of the mail came back: campaign unknown', async () => {
    const subscriber = await createSubscriber(t.db, { email: 'Final.Recipient@Example.com' });
    const original = await originalMail({ to: 'x@example.com', messageId: 'not-ours@elsewhere.example' });
    const body = (await post(dsn({ original, recipient: 'final.recipient@example.com', status: '4.2.2' }))).json();
    assert.equal(body.matched_by, 'recipient');
    assert.equal(body.status, 'bounced subscriber');
    assert.equal(body.subscriber_id, subscriber.id);
    assert.equal(body.campaign_id, null);
  });

  test('an old-style text bounce quoting the returned header; its status code read from the text', async () => {
    const { subscriber, campaign, delivery } = await scene();
    const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id });
    const body = (
      await post(plainBounce({ original, recipient: subscriber.email, text: 'Sorry, I could not deliver: mailbox full (#4.2.2)' }))
    ).json();
    assert.equal(body.matched_by, 'delivery');
    assert.equal(body.campaign_id, campaign.id);
    assert.equal(body.kind, 'soft');
  });

  test('nothing to match → unidentified, stored, no counts', async () => {
    const original = await originalMail({
      to: 'nobody@unknown.example',
      deliveryId: 999_999_999,
      campaignId: 999_999,
      subscriberUid: 'f'.repeat(32),
    });
    const res = await post(dsn({ original, recipient: 'nobody@unknown.example' }));
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      status: 'unidentified',
      kind: 'hard',
      campaign_id: null,
      subscriber_id: null,
      matched_by: null,
      rule_id: null,
      duplicate: false,
      actions: [],
    });
    const list = await t.inject({ method: 'GET', url: `/api/v2/bounces?status=unidentified`, headers: (await t.adminWithSession()).headers });
    const item = list.json().items.find((i: { id: number }) => i.id === body.id);
    assert.deepEqual(item, {
      id: body.id,
      status: 'unidentified',
      date: item.date,
      message_id: null,
      message_subject: null,
      subscriber_id: null,
      subscriber_email: null,
      comment: 'Hard bounce 5.1.1: 550 5.1.1 <nobody@unknown.example>: Recipient address rejected: User unknown in virtual mailbox table',
    });
  });

  test('an abuse report (ARF) is matched through the message it carries', async () => {
    const { subscriber, campaign, delivery } = await scene();
    const original = await originalMail({
      to: subscriber.email,
      deliveryId: delivery.id,
      campaignId: campaign.id,
      subscriberUid: subscriber.uniqueId,
    });
    const body = (await post(arf({ original, recipient: subscriber.email }))).json();
    assert.equal(body.matched_by, 'delivery');
    assert.equal(body.status, 'complaint');
    assert.equal(body.kind, 'complaint');
  });
});

describe('POST /bounces/inbound: a message sent twice is processed once', () => {
  test('same Message-ID → the stored bounce, duplicate: true, nothing counted again', async () => {
    const { subscriber, campaign, delivery } = await scene();
    const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id });
    const message = dsn({ original, recipient: subscriber.email, status: '4.2.2' });
    const first = (await post(message)).json();
    const second = (await post(message)).json();
    assert.deepEqual(second, {
      id: first.id,
      status: 'bounced list message',
      kind: 'soft',
      campaign_id: campaign.id,
      subscriber_id: subscriber.id,
      matched_by: 'delivery',
      rule_id: null,
      duplicate: true,
      actions: [],
    });
    const rows = await t.db.select().from(bounces).where(eq(bounces.subscriberId, subscriber.id));
    assert.equal(rows.length, 1);
    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${subscriber.id}`, headers: (await t.adminWithSession()).headers });
    assert.equal(res.json().bounce_count, 1);
  });

  test('a bounce without a Message-ID is known by the digest of its bytes', async () => {
    const { subscriber, delivery } = await scene();
    const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id });
    const message = dsn({ original, recipient: subscriber.email, status: '4.2.2', messageId: null });
    const first = (await post(message)).json();
    const second = (await post(message)).json();
    assert.equal(second.duplicate, true);
    assert.equal(second.id, first.id);
    const [row] = await t.db.select().from(bounces).where(eq(bounces.id, first.id));
    assert.match(row!.messageId!, /^sha256:[0-9a-f]{64}$/);
    assert.equal((await t.db.select().from(bounceReceipts).where(eq(bounceReceipts.messageId, row!.messageId!))).length, 1);
  });

  test('ten copies at once: one bounce, one count', async () => {
    const { subscriber, campaign, delivery } = await scene();
    const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id });
    const message = dsn({ original, recipient: subscriber.email, status: '4.2.2' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(message)));
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      Array(10).fill(202),
    );
    assert.equal(answers.filter((a) => !a.json().duplicate).length, 1);
    assert.equal((await t.db.select().from(bounces).where(eq(bounces.subscriberId, subscriber.id))).length, 1);
    const { headers } = await t.adminWithSession();
    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${subscriber.id}`, headers });
    assert.equal(res.json().bounce_count, 1);
    // The campaign's figures too, once the recorded counts are folded in.
    await foldBounceCounts(t.ctx);
    const [counter] = await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaign.id));
    assert.equal(counter?.bounces, 1);
    const shown = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}`, headers });
    assert.equal(shown.json().message_metadata.bounce_count, 1);
  });
});
