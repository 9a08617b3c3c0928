import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asc, eq } from 'drizzle-orm';
import { blacklist, campaignCounters, forwards } from '../../src/db/schema/index.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { mailQueueDrained, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({
    publicUrl: 'https://lists.example.org',
    forward: { emailCount: 3, personalNoteSize: 50, rateLimit: 5 },
  });
});
after(() => t.close());

const NOT_RECEIVED = { message: 'Cannot forward: user has not received this message' };

/** A sent campaign and a subscriber it was sent to. */
async function sentCampaign() {
  const campaign = await createCampaign(t.db, {
    status: 'sent',
    subject: 'Autumn news',
    body: '<p>Hello [EMAIL], our autumn news. <a href="https://shop.example.org/autumn">Shop</a></p>',
    textBody: '',
    fromField: 'News Desk <news@lists.example.org>',
    sendFormat: 'html',
  });
  const forwarder = await createSubscriber(t.db, { confirmed: true });
  await createDelivery(t.db, campaign.id, forwarder.id);
  return { campaign, forwarder };
}

const post = (campaignId: number | string, payload: unknown) =>
  t.inject({ method: 'POST', url: `/api/v2/email-forward/${campaignId}`, payload: payload as Record<string, unknown> });

const body = (uid: string, recipients: string[], extra: Record<string, unknown> = {}) => ({
  recipients,
  uid,
  note: null,
  from_name: 'Alice',
  from_email: 'alice@example.com',
  ...extra,
});

async function forwardRows(campaignId: number) {
  const rows = await t.db.select().from(forwards).where(eq(forwards.campaignId, campaignId)).orderBy(asc(forwards.id));
  return rows.map((r) => [r.email, r.status, r.subscriberId]);
}

async function forwardCounter(campaignId: number): Promise<number | null> {
  const [row] = await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaignId));
  return row?.forwards ?? null;
}

describe('forward to a friend: what is refused', () => {
  test('an unknown campaign is 404 before the body is looked at', async () => {
    const res = await post(999_999, {});
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { message: 'Campaign not found.' });
    const route = await post('abc', {});
    assert.equal(route.statusCode, 404);
    assert.match(route.json().message, /^No route found for "POST /);
  });

  test('an empty body names every missing field', async () => {
    const { campaign } = await sentCampaign();
    const res = await post(campaign.id, {});
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: {
        recipients: ['This value should not be blank.'],
        uid: ['This value should not be blank.'],
        from_name: ['This value should not be blank.'],
        from_email: ['This value should not be blank.'],
      },
    });
  });

  test('bad addresses, types and lengths are 422 on their fields', async () => {
    const { campaign, forwarder } = await sentCampaign();
    const cases: [unknown, Record<string, string[]>][] = [
      [body(forwarder.uniqueId, ['not-an-email']), { 'recipients[0]': ['This value is not a valid email address.'] }],
      [body(forwarder.uniqueId, []), { recipients: ['This collection should contain 1 element or more.'] }],
      [{ ...body(forwarder.uniqueId, []), recipients: 'friend@example.net' }, { recipients: ['This value should be of type array.'] }],
      [body(forwarder.uniqueId, ['friend@example.net'], { from_email: 'alice' }), { from_email: ['This value is not a valid email address.'] }],
      [body(forwarder.uniqueId, ['friend@example.net'], { from_name: '  ' }), { from_name: ['This value should not be blank.'] }],
      [body('u'.repeat(256), ['friend@example.net']), { uid: ['This value is too long. It should have 255 characters or less.'] }],
      [body(forwarder.uniqueId, ['friend@example.net'], { note: 42 }), { note: ['This value should be of type string.'] }],
      [
        body(forwarder.uniqueId, [`${'a'.repeat(250)}@example.net`]),
        { 'recipients[0]': ['This value is too long. It should have 255 characters or less.'] },
      ],
    ];
    for (const [payload, errors] of cases) {
      const res = await post(campaign.id, payload);
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, JSON.stringify(payload));
    }
    assert.deepEqual(await forwardRows(campaign.id), []);
  });

  test('more distinct recipients than FORWARD_EMAIL_COUNT, or a note over twice FORWARD_PERSONAL_NOTE_SIZE', async () => {
    const { campaign, forwarder } = await sentCampaign();
    const four = ['a@example.net', 'b@example.net', 'c@example.net', 'd@example.net'];
    const res = await post(campaign.id, body(forwarder.uniqueId, four, { note: 'n'.repeat(101) }));
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: {
        recipients: ['You can forward to at most 3 recipients.'],
        note: ['Your personal note must be at most 100 characters long.'],
      },
    });
    assert.deepEqual(await forwardRows(campaign.id), []);
    assert.equal(t.smtp.messages.length, 0);
  });

  test('by default (FORWARD_PERSONAL_NOTE_SIZE 500) a note of 1,001 characters is refused; 1,000 go out (issue 23)', async () => {
    const defaults = await startTestApp();
    try {
      assert.equal(defaults.config.forward.personalNoteSize, 500);
      const campaign = await createCampaign(defaults.db, { status: 'sent', subject: 'Autumn news', fromField: 'News <news@lists.example.org>' });
      const forwarder = await createSubscriber(defaults.db, { confirmed: true });
      await createDelivery(defaults.db, campaign.id, forwarder.id);
      const send = (note: string) =>
        defaults.inject({
          method: 'POST',
          url: `/api/v2/email-forward/${campaign.id}`,
          payload: body(forwarder.uniqueId, ['friend@example.net'], { note }),
        });
      const refused = await send('n'.repeat(1001));
      assert.equal(refused.statusCode, 422);
      assert.deepEqual(refused.json(), {
        message: 'Validation failed',
        errors: { note: ['Your personal note must be at most 1000 characters long.'] },
      });
      assert.equal(defaults.smtp.messages.length, 0);
      const sent = await send('n'.repeat(1000));
      assert.equal(sent.statusCode, 202, sent.body);
    } finally {
      await defaults.close();
    }
  });

  test('an unknown uid, or one the campaign was not sent to, cannot forward', async () => {
    const { campaign } = await sentCampaign();
    const other = await sentCampaign();
    const queued = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, queued.id, { status: 'queued', sentAt: null });
    const failed = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, failed.id, { status: 'failed', sentAt: null });
    const never = await createSubscriber(t.db);
    for (const uid of ['fwd-123', queued.uniqueId, failed.uniqueId, never.uniqueId, other.forwarder.uniqueId]) {
      const res = await post(campaign.id, body(uid, ['friend1@example.com']));
      assert.equal(res.statusCode, 422, uid);
      assert.deepEqual(res.json(), NOT_RECEIVED);
    }
    assert.deepEqual(await forwardRows(campaign.id), []);
  });
});

describe('forward to a friend: sending', () => {
  test('sends the friend a copy with the note, records it and counts it; duplicates count once', async () => {
    const { campaign, forwarder } = await sentCampaign();
    await mailQueueDrained(t);
    const before = t.smtp.messages.length;
    const res = await post(
      campaign.id,
      body(forwarder.uniqueId, ['Friend.One@example.net', 'friend.one@EXAMPLE.net', 'two@example.net'], {
        note: 'Thought of you [EMAIL] <b>read this</b>',
        from_name: 'Alice Smith',
      }),
    );
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), {
      total_requested: 2,
      total_sent: 2,
      total_failed: 0,
      total_already_sent: 0,
      recipients: [
        { email: 'Friend.One@example.net', status: 'sent', reason: null },
        { email: 'two@example.net', status: 'sent', reason: null },
      ],
    });

    const mails = (await t.smtp.waitFor(before + 2)).slice(before);
    assert.deepEqual(mails.map((m) => m.envelope.to).sort(), [['Friend.One@example.net'], ['two@example.net']]);
    const mail = mails.find((m) => m.envelope.to[0] === 'two@example.net')!;
    const { parsed } = mail;
    assert.equal(parsed.subject, 'Autumn news');
    assert.deepEqual(parsed.from?.value, [{ name: 'News Desk', address: 'news@lists.example.org' }]);
    assert.equal(mail.envelope.from, 'news@lists.example.org');
    assert.deepEqual(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : null, ['two@example.net']);

    const text = parsed.text ?? '';
    assert.ok(text.startsWith('Alice Smith <alice@example.com> forwarded this message to you.\n\nThought of you [EMAIL] <b>read this</b>\n'), text);
    assert.ok(text.includes('Hello two@example.net, our autumn news.'), text);
    const html = String(parsed.html);
    assert.ok(html.includes('Alice Smith &lt;alice@example.com&gt; forwarded this message to you.'), html);
    assert.ok(html.includes('Thought of you &#91;EMAIL&#93; &lt;b&gt;read this&lt;/b&gt;'), html);
    assert.ok(html.includes('Hello two@example.net, our autumn news.'), html);
    assert.ok(html.indexOf('forwarded this message') < html.indexOf('Hello two@example.net'), 'the note comes first');

    // Nothing in it acts for the forwarder or tracks the friend.
    const raw = mail.raw.toString('latin1');
    assert.ok(!raw.includes(forwarder.uniqueId), "the forwarder's unique id is not in the copy");
    assert.equal(parsed.headers.get('list-unsubscribe'), undefined);
    assert.equal(parsed.headers.get('list-unsubscribe-post'), undefined);
    assert.ok(html.includes('href="https://shop.example.org/autumn"'), 'links are not rewritten for tracking');
    assert.ok(!html.includes('/api/v2/t/open.gif'), 'no open pixel');
    assert.equal(parsed.headers.get('x-mailroom-subscriber'), 'forwarded');

    assert.deepEqual(await forwardRows(campaign.id), [
      ['Friend.One@example.net', 'sent', forwarder.id],
      ['two@example.net', 'sent', forwarder.id],
    ]);
    assert.equal(await forwardCounter(campaign.id), 2);
  });

  test('an address this campaign was already forwarded to, by anyone, is already_sent', async () => {
    const { campaign, forwarder } = await sentCampaign();
    const first = await post(campaign.id, body(forwarder.uniqueId, ['two@example.net']));
    assert.equal(first.statusCode, 202);
    // The first copy leaves through the mail queue after the answer: counted before the second request's.
    await mailQueueDrained(t);
    const second = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, second.id);
    const before = t.smtp.messages.length;
    const res = await post(campaign.id, body(second.uniqueId, ['TWO@example.net', 'three@example.net']));
    assert.equal(res.statusCode, 202);
    assert.deepEqual(res.json(), {
      total_requested: 2,
      total_sent: 1,
      total_failed: 0,
      total_already_sent: 1,
      recipients: [
        { email: 'TWO@example.net', status: 'already_sent', reason: null },
        { email: 'three@example.net', status: 'sent', reason: null },
      ],
    });
    await t.smtp.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(
      t.smtp.messages.slice(before).map((m) => m.envelope.to),
      [['three@example.net']],
    );
    assert.deepEqual(await forwardRows(campaign.id), [
      ['two@example.net', 'sent', forwarder.id],
      ['three@example.net', 'sent', second.id],
    ]);
    assert.equal(await forwardCounter(campaign.id), 2);
  });

  test('blacklisted addresses get nothing, at once; a copy the server refuses later was still accepted for sending', async () => {
    const { campaign, forwarder } = await sentCampaign();
    await t.db.insert(blacklist).values({ email: 'Blocked@example.net' });
    const flagged = await createSubscriber(t.db, { email: 'flagged@example.net', blacklisted: true });
    assert.ok(flagged);
    await mailQueueDrained(t);
    const before = t.smtp.messages.length;
    t.smtp.failNext(1, 550, 'No such mailbox');
    const res = await post(campaign.id, body(forwarder.uniqueId, ['refused@example.net', 'blocked@example.net', 'flagged@example.net']));
    assert.equal(res.statusCode, 202);
    // The copy leaves after the answer: the answer says it was accepted for sending (queued), not how the server took it.
    assert.deepEqual(res.json(), {
      total_requested: 3,
      total_sent: 1,
      total_failed: 2,
      total_already_sent: 0,
      recipients: [
        { email: 'refused@example.net', status: 'sent', reason: null },
        { email: 'blocked@example.net', status: 'failed', reason: 'blacklisted' },
        { email: 'flagged@example.net', status: 'failed', reason: 'blacklisted' },
      ],
    });
    // The 550 refusal is final: the queue gives the copy up, and nothing reaches the sink.
    await mailQueueDrained(t);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(t.smtp.messages.length, before);
    assert.deepEqual(await forwardRows(campaign.id), [
      ['refused@example.net', 'sent', forwarder.id],
      ['blocked@example.net', 'failed', forwarder.id],
      ['flagged@example.net', 'failed', forwarder.id],
    ]);
    assert.equal(await forwardCounter(campaign.id), 1, 'the queued copy is counted; the blacklisted ones are not');

    // A blacklisted address may be tried again (it is still refused); the queued one is already_sent.
    const again = await post(campaign.id, body(forwarder.uniqueId, ['refused@example.net', 'blocked@example.net']));
    assert.deepEqual(
      again.json().recipients.map((r: { status: string }) => r.status),
      ['already_sent', 'failed'],
    );
    assert.equal(await forwardCounter(campaign.id), 1);
  });

  test('at most FORWARD_RATE_LIMIT copies per subscriber in 24 hours: 429 with Retry-After, nothing sent', async () => {
    const { campaign, forwarder } = await sentCampaign();
    const other = await sentCampaign();
    const hour = 3600_000;
    const now = Date.now();
    await t.db.insert(forwards).values([
      { campaignId: other.campaign.id, subscriberId: forwarder.id, email: 'old@example.net', status: 'sent', createdAt: new Date(now - 25 * hour) },
      { campaignId: other.campaign.id, subscriberId: forwarder.id, email: 'a@example.net', status: 'sent', createdAt: new Date(now - 23 * hour) },
      { campaignId: other.campaign.id, subscriberId: forwarder.id, email: 'b@example.net', status: 'failed', createdAt: new Date(now - 2 * hour) },
      { campaignId: other.campaign.id, subscriberId: forwarder.id, email: 'c@example.net', status: 'sent', createdAt: new Date(now - hour) },
    ]);
    // 3 in the window: 2 more fit, 3 do not.
    const tooMany = await post(campaign.id, body(forwarder.uniqueId, ['x@example.net', 'y@example.net', 'z@example.net']));
    assert.equal(tooMany.statusCode, 429);
    assert.deepEqual(tooMany.json(), { message: 'Forward limit reached: a subscriber may forward at most 5 messages in 24 hours.' });
    // The oldest counted forward (23 hours ago) leaves the window in about an hour.
    const retryAfter = Number(tooMany.headers['retry-after']);
    assert.ok(retryAfter > 3500 && retryAfter <= 3601, String(retryAfter));
    assert.deepEqual(await forwardRows(campaign.id), []);

    const two = await post(campaign.id, body(forwarder.uniqueId, ['x@example.net', 'y@example.net']));
    assert.equal(two.statusCode, 202);
    assert.equal(two.json().total_sent, 2);
    const one = await post(campaign.id, body(forwarder.uniqueId, ['z@example.net']));
    assert.equal(one.statusCode, 429);
    // Already-sent addresses need no allowance.
    const repeat = await post(campaign.id, body(forwarder.uniqueId, ['x@example.net']));
    assert.equal(repeat.statusCode, 202);
    assert.equal(repeat.json().recipients[0].status, 'already_sent');
    assert.equal(await forwardCounter(campaign.id), 2);
  });

  test('two requests at once cannot both send to one friend', async () => {
    const { campaign, forwarder } = await sentCampaign();
    const second = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, second.id);
    const [a, b] = await Promise.all([
      post(campaign.id, body(forwarder.uniqueId, ['same@example.net'])),
      post(campaign.id, body(second.uniqueId, ['same@example.net'])),
    ]);
    assert.deepEqual([a.json().recipients[0].status, b.json().recipients[0].status].sort(), ['already_sent', 'sent']);
    assert.equal(await forwardCounter(campaign.id), 1);
  });
});
