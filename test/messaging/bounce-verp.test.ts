import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { ConfigError, loadConfig } from '../../src/config.js';
import { bounces } from '../../src/db/schema/index.js';
import { decodeVerpToken, encodeVerpToken, VERP_TOKEN_LENGTH } from '../../src/mail/verp.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { deliveryRows, listWithMembers, mailsOf, sendableCampaign, withWorker } from '../sending/send-fixtures.js';
import { dsn, originalMail, plainBounce } from './bounce-samples.js';

/*
 * Issue 14: VERP (BOUNCE_VERP=1) — each campaign message goes out from `bounces+<signed delivery>@example.com`, and a
 * bounce coming back to that address is matched by the token first — and the stricter matching: a bounce matched
 * only by the failed address or by header lines quoted in its text acts on no one.
 */

const TOKEN = 'verp-test-token-0123456789';
let t: TestApp;
let admin: Record<string, string>;
before(async () => {
  t = await startTestApp({
    bounceAddress: 'bounces@example.com',
    bounceVerp: true,
    bounces: {
      inboundToken: TOKEN,
      maxSize: 1_048_576,
      readTimeoutMs: 2000,
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

const post = (body: Buffer, recipient?: string) =>
  t.inject({
    method: 'POST',
    url: '/api/v2/bounces/inbound',
    query: recipient === undefined ? {} : { recipient },
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
    payload: body,
  });

/** A DSN sent to `to` (its To header) whose returned headers carry nothing of Mailroom's (a foreign Message-ID). */
async function foreignDsn(to: string, failed: string, status = '5.1.1') {
  const original = await originalMail({ to: failed, messageId: `gone.${Math.random().toString(36).slice(2)}@relay.example` });
  return Buffer.from(dsn({ original, recipient: failed, status }).toString('latin1').replace('To: bounces@example.com', `To: ${to}`), 'latin1');
}

/** An old-style text bounce quoting the returned header, naming the failed address as Exim does. */
function textBounce(original: Buffer, recipient: string, text: string) {
  const message = plainBounce({ original, recipient, text }).toString('latin1');
  return Buffer.from(`X-Failed-Recipients: ${recipient}\r\n${message}`, 'latin1');
}

async function subscriberState(id: number) {
  const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${id}`, headers: admin });
  const body = res.json();
  return { confirmed: body.confirmed, blacklisted: body.blacklisted, bounce_count: body.bounce_count };
}

describe('VERP tokens', () => {
  test('round trip, lower-case base32 of fixed length, any case read back; forged, altered or foreign tokens are not', () => {
    const token = encodeVerpToken('secret-a', 123_456_789)!;
    assert.match(token, new RegExp(`^[a-z2-7]{${VERP_TOKEN_LENGTH}}$`));
    assert.equal(VERP_TOKEN_LENGTH, 24);
    assert.equal(decodeVerpToken('secret-a', token), 123_456_789);
    assert.equal(decodeVerpToken('secret-a', token.toUpperCase()), 123_456_789);
    assert.equal(decodeVerpToken('secret-b', token), null);
    const altered = (token[0] === 'a' ? 'b' : 'a') + token.slice(1);
    assert.equal(decodeVerpToken('secret-a', altered), null);
    assert.equal(decodeVerpToken('secret-a', token.slice(1)), null);
    assert.equal(decodeVerpToken('secret-a', 'a'.repeat(23) + '!'), null);
    assert.equal(encodeVerpToken('secret-a', 2 ** 48), null);
    assert.equal(encodeVerpToken('secret-a', 0), null);
  });

  test('BOUNCE_VERP=1 needs BOUNCE_ADDRESS', () => {
    assert.throws(
      () => loadConfig({ BOUNCE_VERP: '1' }),
      (err: Error) => err instanceof ConfigError && /BOUNCE_VERP=1 needs BOUNCE_ADDRESS/.test(err.message),
    );
    assert.throws(() => loadConfig({ BOUNCE_VERP: 'yes', BOUNCE_ADDRESS: 'b@example.com' }), ConfigError);
    assert.equal(loadConfig({ BOUNCE_VERP: '1', BOUNCE_ADDRESS: 'b@example.com' }).bounceVerp, true);
    assert.equal(loadConfig({}).bounceVerp, false);
  });
});

describe('BOUNCE_VERP=1 over real SMTP', () => {
  test('each delivery goes out from its own signed address; a DSN sent back to it is matched by the token', async () => {
    const { list, members: subscribers } = await listWithMembers(t.db, 2);
    const campaign = await sendableCampaign(t.db, [list.id]);
    assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers: admin })).statusCode, 200);
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    const mails = mailsOf(t.smtp, campaign.id);
    assert.equal(mails.length, 2);
    const rows = await deliveryRows(t.db, campaign.id);
    const senders = new Map<string, string>();
    for (const mail of mails) {
      const from = mail.envelope.from;
      assert.match(from, /^bounces\+[a-z2-7]{24}@example\.com$/);
      // The From header and Return-Path's purpose stay apart: From is the campaign's.
      assert.deepEqual(mail.parsed.from!.value, [{ name: 'News', address: 'news@example.com' }]);
      const delivery = rows.find((r) => r.id === decodeVerpToken(t.ctx.secrets.linkToken, from.slice(8, 32)));
      assert.ok(delivery, `the token of ${from} names a delivery of the campaign`);
      const subscriber = subscribers.find((s) => s.id === delivery.subscriberId)!;
      assert.deepEqual(mail.envelope.to, [subscriber.email]);
      senders.set(subscriber.email, from);
    }
    assert.equal(new Set(senders.values()).size, 2);

    // The remote server kept nothing of ours: only the address the bounce came back to ties it to the delivery.
    const [first, second] = subscribers;
    const verp = senders.get(first!.email)!;
    const res = await post(await foreignDsn(verp.toUpperCase(), first!.email));
    assert.equal(res.statusCode, 202, res.body);
    const body = res.json();
    const delivery = rows.find((r) => r.subscriberId === first!.id)!;
    assert.deepEqual(body, {
      id: body.id,
      status: 'bounced list message',
      kind: 'hard',
      campaign_id: campaign.id,
      subscriber_id: first!.id,
      matched_by: 'verp',
      rule_id: null,
      duplicate: false,
      actions: [
        { action: 'counted', reason: `Hard bounce 5.1.1 (campaign ${campaign.id}, bounce ${body.id}): bounce count + 1` },
        { action: 'blacklisted', reason: `Hard bounce 5.1.1 (campaign ${campaign.id}, bounce ${body.id})` },
      ],
    });
    const [stored] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(stored!.deliveryId, delivery.id);

    // The envelope recipient given by the pipe (?recipient=), the bounce's own To saying something else.
    const viaQuery = (await post(await foreignDsn('postmaster@example.com', second!.email, '4.2.2'), senders.get(second!.email))).json();
    assert.equal(viaQuery.matched_by, 'verp');
    assert.equal(viaQuery.subscriber_id, second!.id);
    assert.deepEqual(
      viaQuery.actions.map((a: { action: string }) => a.action),
      ['counted'],
    );
  });

  test('a forged or altered token is not matched by token: the bounce falls back to the failed address and acts on no one', async () => {
    const subscriber = await createSubscriber(t.db, { confirmed: true });
    const campaign = await createCampaign(t.db, { status: 'sent' });
    const delivery = await createDelivery(t.db, campaign.id, subscriber.id);
    const good = encodeVerpToken(t.ctx.secrets.linkToken, delivery.id)!;
    const forged = encodeVerpToken('not-the-secret', delivery.id)!;
    const altered = good.slice(0, 23) + (good[23] === 'a' ? 'b' : 'a');
    for (const token of [forged, altered]) {
      const body = (await post(await foreignDsn(`bounces+${token}@example.com`, subscriber.email))).json();
      assert.equal(body.matched_by, 'recipient');
      assert.deepEqual(body.actions, []);
    }
    assert.deepEqual(await subscriberState(subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 0 });
  });

  test('a test send (no delivery) goes out from BOUNCE_ADDRESS itself', async () => {
    const subscriber = await createSubscriber(t.db, { confirmed: true });
    const campaign = await sendableCampaign(t.db, []);
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/campaigns/${campaign.id}/test-send`,
      headers: admin,
      payload: { emails: [subscriber.email] },
    });
    assert.equal(res.statusCode, 200, res.body);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.equal(mail!.envelope.from, 'bounces@example.com');
  });

  test('?recipient= that is not one address → 422 saying so; nothing stored', async () => {
    const subscriber = await createSubscriber(t.db, { confirmed: true });
    const res = await post(await foreignDsn('bounces@example.com', subscriber.email), 'a@b.example, c@d.example');
    assert.equal(res.statusCode, 422);
    assert.match(JSON.stringify(res.json()), /recipient must be the one e-mail address/);
    assert.equal((await t.db.select().from(bounces).where(eq(bounces.subscriberId, subscriber.id))).length, 0);
  });
});

describe('stricter matching: what is not certain acts on no one', () => {
  async function sentTo(email?: string) {
    const subscriber = await createSubscriber(t.db, { confirmed: true, ...(email ? { email } : {}) });
    const campaign = await createCampaign(t.db, { status: 'sent' });
    const delivery = await createDelivery(t.db, campaign.id, subscriber.id);
    return { subscriber, campaign, delivery };
  }

  test('only the failed address (hard bounce): recorded as a bounced subscriber, not counted, not blacklisted', async () => {
    const { subscriber } = await sentTo();
    const body = (await post(await foreignDsn('bounces@example.com', subscriber.email))).json();
    assert.deepEqual(body, {
      id: body.id,
      status: 'bounced subscriber',
      kind: 'hard',
      campaign_id: null,
      subscriber_id: subscriber.id,
      matched_by: 'recipient',
      rule_id: null,
      duplicate: false,
      actions: [],
    });
    assert.deepEqual(await subscriberState(subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 0 });
    const history = (await t.inject({ method: 'GET', url: `/api/v2/subscribers/${subscriber.id}/history`, headers: admin })).json();
    assert.match(history.items[0].detail, /matched only by the failed address, so nothing was done$/);
    const [stored] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(stored!.status, 'bounced subscriber');
  });

  test('an address Mailroom never sent to (a subscriber without deliveries): nothing done', async () => {
    const subscriber = await createSubscriber(t.db, { confirmed: true });
    const body = (await post(await foreignDsn('bounces@example.com', subscriber.email))).json();
    assert.equal(body.matched_by, 'recipient');
    assert.deepEqual(body.actions, []);
    assert.deepEqual(await subscriberState(subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 0 });
  });

  test('X-Mailroom-Delivery quoted in the text, naming a delivery sent to the failed address: counted, not blacklisted', async () => {
    const { subscriber, campaign, delivery } = await sentTo();
    const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id });
    const body = (await post(textBounce(original, subscriber.email, 'Remote host said: 550 5.1.1 user unknown'))).json();
    assert.equal(body.matched_by, 'delivery');
    assert.equal(body.kind, 'hard');
    assert.deepEqual(body.actions, [
      { action: 'counted', reason: `Hard bounce 5.1.1 (campaign ${campaign.id}, bounce ${body.id}): bounce count + 1` },
    ]);
    assert.deepEqual(await subscriberState(subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 1 });
    const info = await t.inject({ method: 'GET', url: `/api/v2/blacklist/info/${encodeURIComponent(subscriber.email)}`, headers: admin });
    assert.equal(info.statusCode, 404);
  });

  test('X-Mailroom-Delivery quoted in the text, the failed address another: recorded, not counted', async () => {
    const victim = await sentTo();
    const original = await originalMail({ to: 'someone@else.example', deliveryId: victim.delivery.id });
    const body = (await post(textBounce(original, 'someone@else.example', 'Remote host said: 550 5.1.1 user unknown'))).json();
    assert.equal(body.matched_by, 'delivery');
    assert.deepEqual(body.actions, []);
    assert.deepEqual(await subscriberState(victim.subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 0 });
    const [stored] = await t.db.select().from(bounces).where(eq(bounces.id, body.id));
    assert.equal(stored!.deliveryId, null);
  });

  test('uncertain bounces of deliveries really sent count towards the threshold a certain bounce then reaches', async () => {
    const subscriber = await createSubscriber(t.db, { confirmed: true });
    const sent = [];
    for (let i = 0; i < 3; i++) {
      const campaign = await createCampaign(t.db, { status: 'sent' });
      sent.push({ campaign, delivery: await createDelivery(t.db, campaign.id, subscriber.id) });
    }
    for (const { delivery } of sent.slice(0, 2)) {
      const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id });
      const body = (await post(textBounce(original, subscriber.email, 'mailbox full (#4.2.2)'))).json();
      assert.deepEqual(
        body.actions.map((a: { action: string }) => a.action),
        ['counted'],
      );
    }
    assert.deepEqual(await subscriberState(subscriber.id), { confirmed: true, blacklisted: false, bounce_count: 2 });
    const third = sent[2]!;
    const token = encodeVerpToken(t.ctx.secrets.linkToken, third.delivery.id)!;
    const body = (await post(await foreignDsn(`bounces+${token}@example.com`, subscriber.email, '4.2.2'))).json();
    assert.equal(body.matched_by, 'verp');
    assert.deepEqual(body.actions[1], { action: 'unconfirmed', reason: '3 consecutive bounces, threshold reached' });
    assert.deepEqual(await subscriberState(subscriber.id), { confirmed: false, blacklisted: false, bounce_count: 3 });
  });
});
