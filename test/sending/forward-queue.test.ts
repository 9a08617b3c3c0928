import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { forwards } from '../../src/db/schema/index.js';
import { closedPort, startSmtpSink, type SmtpSink } from '../smtp-sink.js';
import { mailQueueDrained, queuedMailRetried, startTestApp, type TestApp } from '../helper.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';

/*
 * Forward-to-a-friend copies go through the system-mail queue (issue 22): a forward while the mail server is down
 * answers at once, and the friend's copy — the campaign as a friend should get it — arrives once the server is back.
 */

let t: TestApp;
let port: number;
let sink: SmtpSink | null = null;
before(async () => {
  port = await closedPort();
  t = await startTestApp({
    publicUrl: 'https://lists.example.org',
    smtpUrl: `smtp://127.0.0.1:${port}/?tls=off`,
    forward: { emailCount: 3, personalNoteSize: 50, rateLimit: 5 },
    mailQueue: { pollMs: 50, retryMs: 100, giveUpSeconds: 3600, leaseSeconds: 600 },
  });
});
after(async () => {
  await t.close();
  await sink?.close();
});

describe('forward to a friend through the mail queue', () => {
  test('while the mail server is down: 202 queued at once; the copy arrives once it is back, once, as the campaign', async () => {
    const campaign = await createCampaign(t.db, {
      status: 'sent',
      subject: 'Winter news',
      body: '<p>Hello [EMAIL], our winter news. <a href="https://shop.example.org/winter">Shop</a></p>',
      textBody: '',
      fromField: 'News Desk <news@lists.example.org>',
      sendFormat: 'html',
    });
    const forwarder = await createSubscriber(t.db, { confirmed: true });
    await createDelivery(t.db, campaign.id, forwarder.id);

    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/email-forward/${campaign.id}`,
      payload: { recipients: ['friend@example.net'], uid: forwarder.uniqueId, note: 'For you', from_name: 'Alice', from_email: 'alice@example.com' },
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), {
      total_requested: 1,
      total_sent: 1,
      total_failed: 0,
      total_already_sent: 0,
      recipients: [{ email: 'friend@example.net', status: 'sent', reason: null }],
    });
    const recorded = await t.db.select().from(forwards).where(eq(forwards.campaignId, campaign.id));
    assert.deepEqual(
      recorded.map((r) => [r.email, r.status]),
      [['friend@example.net', 'sent']],
    );

    // Attempts fail while nothing listens; the copy waits, its failure kept without the friend's address.
    await queuedMailRetried(t, 'forward', 'friend@example.net');

    sink = await startSmtpSink(port);
    const [mail] = await sink.waitFor(1, 15_000);
    await mailQueueDrained(t);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(sink.messages.length, 1, 'delivered once');

    // Still the campaign mail a friend should get.
    const { parsed } = mail!;
    assert.deepEqual(mail!.envelope, { from: 'news@lists.example.org', to: ['friend@example.net'] });
    assert.equal(parsed.subject, 'Winter news');
    assert.deepEqual(parsed.from?.value, [{ name: 'News Desk', address: 'news@lists.example.org' }]);
    assert.deepEqual(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : null, ['friend@example.net']);
    assert.match(parsed.messageId ?? '', /^<c\d+\.s\d*\.[0-9a-f]+@/);
    const text = parsed.text ?? '';
    assert.ok(text.startsWith('Alice <alice@example.com> forwarded this message to you.\n\nFor you\n'), text);
    assert.ok(text.includes('Hello friend@example.net, our winter news.'), text);
    const html = String(parsed.html);
    assert.ok(html.includes('Hello friend@example.net, our winter news.'), html);
    assert.ok(html.includes('href="https://shop.example.org/winter"'), 'links are not rewritten for tracking');
    assert.ok(!html.includes('/api/v2/t/open.gif'), 'no open pixel');
    assert.equal(parsed.headers.get('x-mailroom-subscriber'), 'forwarded');
    assert.equal(parsed.headers.get('list-unsubscribe'), undefined);
    assert.ok(!mail!.raw.toString('latin1').includes(forwarder.uniqueId), "the forwarder's unique id is not in the copy");
  });
});
