import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blacklist } from '../../src/db/schema/index.js';
import { encodeForwardToken } from '../../src/sending/forward-link.js';
import { encodeUnsubscribeToken } from '../../src/subscription/unsubscribe-token.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * The forward-to-a-friend page over the forward service: the form, validation beside the fields, the copies in the
 * SMTP sink, the service's limits as pages, forged links, and the same thank-you whoever got a copy.
 */

let t: TestApp;
let n = 0;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
before(async () => {
  t = await startTestApp({ forward: { emailCount: 2, personalNoteSize: 10, rateLimit: 3 }, preferences: { linkDays: 365, clientLimit: 100 } });
});
after(async () => t?.close());

async function sent() {
  const campaign = await createCampaign(t.db, {
    status: 'sent',
    subject: `Autumn news ${++n}`,
    body: '<p>Our autumn news.</p>',
    textBody: '',
    sendFormat: 'html',
  });
  const forwarder = await createSubscriber(t.db, { confirmed: true, email: `fwd-${n}@example.com` });
  await createDelivery(t.db, campaign.id, forwarder.id);
  const path = `/forward/${encodeForwardToken(t.ctx.secrets.linkToken, { uniqueId: forwarder.uniqueId, campaignId: campaign.id })}`;
  return { campaign, forwarder, path };
}

const post = (path: string, fields: [string, string][], headers: Record<string, string> = {}) =>
  t.inject({
    method: 'POST',
    url: path,
    headers: { ...FORM, ...headers },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: '192.0.2.7',
  });

describe('the forward page', () => {
  test('shows a form with FORWARD_EMAIL_COUNT address fields, the name and the note', async () => {
    const s = await sent();
    const res = await t.inject({ method: 'GET', url: s.path });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, new RegExp(`Send a copy of “Autumn news ${n}” to someone`));
    assert.equal(res.body.match(/name="friend"/g)?.length, 2);
    assert.match(res.body, /name="from_name"/);
    assert.match(res.body, /<textarea id="note" name="note" maxlength="20"/);
    assert.match(res.headers['content-security-policy'] as string, /script-src 'none'/);
  });

  test('validation errors beside the fields, input kept; nothing sent', async () => {
    const s = await sent();
    const before = t.smtp.messages.length;
    const res = await post(s.path, [
      ['friend', 'not-mail'],
      ['friend', ''],
      ['from_name', ''],
      ['note', 'x'.repeat(21)],
    ]);
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /<p class="error" id="friend-0-error">Enter an e-mail address like name@example\.com\.<\/p>/);
    assert.match(res.body, /<p class="error" id="from-name-error">Please fill in this field\.<\/p>/);
    assert.match(res.body, /<p class="error" id="note-error">The note is too long: at most 20 characters\.<\/p>/);
    assert.match(res.body, /value="not-mail"/);
    assert.equal(t.smtp.messages.length, before);
  });

  test('sends the copies; the thank-you is the same whether or not a friend could get one', async () => {
    const s = await sent();
    await t.db.insert(blacklist).values({ email: 'blocked-friend@example.com' });
    const before = t.smtp.messages.length;
    const res = await post(
      s.path,
      [
        ['friend', 'friend-a@example.com'],
        ['friend', 'blocked-friend@example.com'],
        ['from_name', 'Alice'],
        ['note', 'Look!'],
      ],
      { 'accept-language': 'de' },
    );
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Vielen Dank/);
    const mails = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(
      mails.map((m) => m.envelope.to),
      [['friend-a@example.com']],
    );
    assert.match(mails[0]!.parsed.text ?? '', /Alice <fwd-\d+@example\.com> forwarded this message to you\.\n\nLook!/);
    const again = await post(
      s.path,
      [
        ['friend', 'friend-a@example.com'],
        ['from_name', 'Alice'],
      ],
      { 'accept-language': 'de' },
    );
    assert.equal(again.body, res.body, 'already sent: the same page');
  });

  test("the service's daily limit per subscriber: the 429 page", async () => {
    const s = await sent();
    for (const friend of ['l1@example.com', 'l2@example.com', 'l3@example.com']) {
      assert.equal(
        (
          await post(s.path, [
            ['friend', friend],
            ['from_name', 'A'],
          ])
        ).statusCode,
        200,
      );
    }
    const res = await post(s.path, [
      ['friend', 'l4@example.com'],
      ['from_name', 'A'],
    ]);
    assert.equal(res.statusCode, 429);
    assert.ok(Number(res.headers['retry-after']) > 0);
    assert.match(res.body, /Please wait a moment/);
  });

  test('forged links, other-purpose tokens and campaigns not sent to the subscriber: error pages', async () => {
    const s = await sent();
    const other = await createCampaign(t.db, { status: 'sent' });
    const notSent = `/forward/${encodeForwardToken(t.ctx.secrets.linkToken, { uniqueId: s.forwarder.uniqueId, campaignId: other.id })}`;
    const unsubscribe = `/forward/${encodeUnsubscribeToken(t.ctx.secrets.linkToken, { uniqueId: s.forwarder.uniqueId, campaignId: s.campaign.id })}`;
    const forwardedCopy = `/forward/${encodeForwardToken(t.ctx.secrets.linkToken, { uniqueId: 'forwarded', campaignId: s.campaign.id })}`;
    for (const path of [unsubscribe, `${s.path}x`, '/forward/abc']) {
      const res = await t.inject({ method: 'GET', url: path });
      assert.equal(res.statusCode, 404, path);
      assert.match(res.body, /This link does not work/);
    }
    for (const path of [notSent, forwardedCopy]) {
      const res = await post(path, [
        ['friend', 'x@example.com'],
        ['from_name', 'A'],
      ]);
      assert.equal(res.statusCode, 404, path);
      assert.match(res.body, /This message cannot be forwarded/);
    }
  });
});
