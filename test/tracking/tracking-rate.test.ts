import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { clicks, deliveries, opens, subscribers } from '../../src/db/schema/index.js';
import { AddressLimiter } from '../../src/tracking/address-limiter.js';
import { trackingDrops } from '../../src/tracking/index.js';
import { decodeLinkToken, encodeLegacyLinkToken, encodeLinkToken } from '../../src/tracking/link-token.js';
import { createCampaign, createDelivery, createLink, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * Issue 17 (low): click tokens carried a 32-bit MAC and /lt had no rate limit. Tokens now carry 80 bits; the old
 * 16-character ones still work for links that existed before (their campaigns' lifetime), no other; and /lt and
 * /t/open.gif are limited per client address (TRACKING_RATE, here 2 a second: bursts of 10).
 */

let t: TestApp;
before(async () => {
  t = await startTestApp({ tracking: { flushMs: 50, machineSeconds: 0, ratePerAddress: 2 } });
});
after(() => t.close());

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const get = (url: string, remoteAddress: string) => t.inject({ method: 'GET', url, headers: { 'user-agent': BROWSER }, remoteAddress });
const secrets = () => t.ctx.secrets as { linkToken: string; legacyLinkTokensBelow: number };

async function scene() {
  const campaign = await createCampaign(t.db, { status: 'sent', sentAt: new Date(Date.now() - 3_600_000) });
  const subscriber = await createSubscriber(t.db);
  await createDelivery(t.db, campaign.id, subscriber.id, { sentAt: new Date(Date.now() - 3_600_000) });
  const link = await createLink(t.db, campaign.id, 'https://example.com/offer');
  return { campaign, subscriber, link };
}

describe('click tokens', () => {
  test('24 characters with an 80-bit MAC; a token with any other MAC, or the old 32 bits on a new link, is not valid', async () => {
    const { link, subscriber } = await scene();
    const token = encodeLinkToken(secrets().linkToken, { linkId: link.id, subscriberId: subscriber.id });
    assert.match(token, /^[A-Za-z0-9_-]{24}$/);
    assert.equal(Buffer.from(token, 'base64url').length - 8, 10, '10 bytes of MAC');
    assert.equal((await get(`/lt/${token}`, '203.0.113.1')).statusCode, 302);
    // The last MAC byte changed: refused (every bit counts, not just the first 32).
    const bytes = Buffer.from(token, 'base64url');
    bytes[17] = bytes[17]! ^ 1;
    assert.equal(decodeLinkToken(secrets().linkToken, bytes.toString('base64url')), null);
    assert.equal((await get(`/lt/${bytes.toString('base64url')}`, '203.0.113.1')).statusCode, 404);
    // A link made since the change (every link of this fresh database) does not take an old token.
    const legacy = encodeLegacyLinkToken(secrets().linkToken, { linkId: link.id, subscriberId: subscriber.id });
    assert.match(legacy, /^[A-Za-z0-9_-]{16}$/);
    assert.ok(secrets().legacyLinkTokensBelow <= link.id);
    assert.equal((await get(`/lt/${legacy}`, '203.0.113.1')).statusCode, 404);
  });

  test('an old 16-character token keeps working for a link that existed before the change', async () => {
    const { link, subscriber, campaign } = await scene();
    const saved = secrets().legacyLinkTokensBelow;
    secrets().legacyLinkTokensBelow = link.id + 1; // as if the link was there when routines/031 first ran
    try {
      const legacy = encodeLegacyLinkToken(secrets().linkToken, { linkId: link.id, subscriberId: subscriber.id });
      const res = await get(`/lt/${legacy}`, '203.0.113.2');
      assert.deepEqual([res.statusCode, res.headers.location], [302, 'https://example.com/offer']);
      await t.ctx.events.flush();
      assert.equal((await t.db.select().from(clicks).where(eq(clicks.campaignId, campaign.id))).length, 1);
    } finally {
      secrets().legacyLinkTokensBelow = saved;
    }
  });
});

describe('per-address rate (TRACKING_RATE)', () => {
  test('over the rate a current token still redirects, but the click is not recorded; another address is not affected', async () => {
    const { link, subscriber, campaign } = await scene();
    const token = encodeLinkToken(secrets().linkToken, { linkId: link.id, subscriberId: subscriber.id });
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await get(`/lt/${token}`, '198.51.100.20'));
    assert.ok(
      answers.every((r) => r.statusCode === 302 && r.headers.location === 'https://example.com/offer'),
      'a person never loses the redirect',
    );
    assert.equal((await get(`/lt/${token}`, '198.51.100.21')).statusCode, 302);
    await t.ctx.events.flush();
    const recorded = (await t.db.select().from(clicks).where(eq(clicks.campaignId, campaign.id))).length;
    // Bursts of 10, refilled at 2 a second while the 30 requests ran; the other address's click counts.
    assert.ok(recorded >= 11 && recorded < 20, `${recorded} clicks recorded of 31`);
  });

  test('over the rate an old token is answered 429 with Retry-After, without being checked', async () => {
    const { link, subscriber } = await scene();
    const saved = secrets().legacyLinkTokensBelow;
    secrets().legacyLinkTokensBelow = link.id + 1;
    try {
      const legacy = encodeLegacyLinkToken(secrets().linkToken, { linkId: link.id, subscriberId: subscriber.id });
      const forged = `${legacy.slice(0, 12)}AAAA`;
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await get(`/lt/${i % 2 ? legacy : forged}`, '198.51.100.30')).statusCode);
      assert.deepEqual(statuses.slice(0, 10), [404, 302, 404, 302, 404, 302, 404, 302, 404, 302]);
      const limited = await get(`/lt/${legacy}`, '198.51.100.30');
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.headers['retry-after'], '1');
      assert.match(limited.body, /Too many requests/);
      assert.ok(statuses.slice(10).includes(429));
    } finally {
      secrets().legacyLinkTokensBelow = saved;
    }
  });

  test('the open pixel is always answered; over the rate the open is not recorded', async () => {
    const { subscriber, campaign } = await scene();
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await get(`/t/open.gif?u=${subscriber.uniqueId}&m=${campaign.id}`, '198.51.100.40'));
    assert.ok(answers.every((r) => r.statusCode === 200 && r.headers['content-type'] === 'image/gif'));
    await t.ctx.events.flush();
    const recorded = (await t.db.select().from(opens).where(eq(opens.campaignId, campaign.id))).length;
    assert.ok(recorded >= 10 && recorded < 20, `${recorded} opens recorded of 30`);
  });
});

describe('per address and delivery (issue 23: image proxies fetch for many readers from a few addresses)', () => {
  /** A campaign sent an hour ago to `count` subscribers, written in bulk. */
  async function bigSend(count: number) {
    const { campaign, link } = await scene();
    const rows = await t.db
      .insert(subscribers)
      .values(
        Array.from({ length: count }, (_, i) => ({ email: `proxy-${campaign.id}-${i}@example.com`, uniqueId: randomBytes(16).toString('hex') })),
      )
      .returning({ id: subscribers.id, uniqueId: subscribers.uniqueId });
    const sentAt = new Date(Date.now() - 3_600_000);
    await t.db.insert(deliveries).values(rows.map((r) => ({ campaignId: campaign.id, subscriberId: r.id, status: 'sent' as const, sentAt })));
    return { campaign, link, recipients: rows };
  }

  /** Runs `fn` for every item, `width` at a time. */
  async function inBatches<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>) {
    for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
  }

  test('from one address, the opens and clicks of 1,000 distinct recipients are all recorded; 1,000 repeats of one delivery are not, and are counted', async () => {
    const { campaign, link, recipients } = await bigSend(1000);
    const before = trackingDrops(t.ctx);
    await inBatches(recipients, 100, async (r) => {
      const res = await get(`/t/open.gif?u=${r.uniqueId}&m=${campaign.id}`, '66.249.84.1');
      assert.equal(res.statusCode, 200);
    });
    await inBatches(recipients, 20, async (r) => {
      const token = encodeLinkToken(secrets().linkToken, { linkId: link.id, subscriberId: r.id });
      assert.equal((await get(`/lt/${token}`, '66.249.84.1')).statusCode, 302);
    });
    await t.ctx.events.flush();
    assert.equal((await t.db.select().from(opens).where(eq(opens.campaignId, campaign.id))).length, 1000);
    assert.equal((await t.db.select().from(clicks).where(eq(clicks.campaignId, campaign.id))).length, 1000);
    assert.deepEqual(trackingDrops(t.ctx), before, 'nothing dropped');

    // One delivery, 1,000 times from one address: a burst of 10 and 2 a second after it (TRACKING_RATE 2 here).
    const one = recipients[0]!;
    const token = encodeLinkToken(secrets().linkToken, { linkId: link.id, subscriberId: one.id });
    const started = performance.now();
    await inBatches(Array.from({ length: 1000 }), 100, async () => {
      assert.equal((await get(`/t/open.gif?u=${one.uniqueId}&m=${campaign.id}`, '66.249.84.1')).statusCode, 200);
    });
    await inBatches(Array.from({ length: 1000 }), 20, async () => {
      assert.equal((await get(`/lt/${token}`, '66.249.84.1')).statusCode, 302);
    });
    const allowed = 2 * (10 + Math.ceil(((performance.now() - started) / 1000) * 2));
    await t.ctx.events.flush();
    const repeatedOpens = (await t.db.select().from(opens).where(eq(opens.subscriberId, one.id))).length - 1;
    const repeatedClicks = (await t.db.select().from(clicks).where(eq(clicks.subscriberId, one.id))).length - 1;
    assert.ok(repeatedOpens >= 10 && repeatedOpens <= allowed, `${repeatedOpens} of 1,000 repeated opens recorded`);
    assert.ok(repeatedClicks >= 10 && repeatedClicks <= allowed, `${repeatedClicks} of 1,000 repeated clicks recorded`);
    // What was not recorded is counted, for a metrics endpoint (and logged at most once a minute).
    assert.deepEqual(trackingDrops(t.ctx), {
      opens: before.opens + 1000 - repeatedOpens,
      clicks: before.clicks + 1000 - repeatedClicks,
    });
  });
});

describe('AddressLimiter', () => {
  test('refills at its rate up to 5 s worth, and keeps at most maxAddresses buckets', () => {
    let now = 0;
    const limiter = new AddressLimiter(4, 3, () => now);
    const takes = (address: string, n: number) => Array.from({ length: n }, () => limiter.take(address)).filter(Boolean).length;
    assert.equal(takes('a', 25), 20, 'a burst of 5 s × 4');
    now += 500;
    assert.equal(takes('a', 5), 2, 'half a second: 2 more');
    now += 60_000;
    assert.equal(takes('a', 25), 20, 'never more than the burst');
    limiter.take('b');
    limiter.take('c');
    limiter.take('d');
    assert.equal(limiter.size, 3, 'the first address was forgotten');
    assert.equal(takes('a', 1), 1, 'and starts again full');
    assert.equal(new AddressLimiter(0).take('x'), true);
  });
});
