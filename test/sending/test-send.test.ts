import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { blacklist, campaigns, deliveries } from '../../src/db/schema/index.js';
import { decodeUnsubscribeToken } from '../../src/subscription/unsubscribe-token.js';
import { createCampaign, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { rawHeader, rawHeaders, uniqueEmail } from './compose-fixtures.js';

/*
 * POST /api/v2/campaigns/{messageId}/test-send: the route's rules and answers, and the headers every campaign mail
 * carries. (What the bodies contain: compose.test.ts.)
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const CAMPAIGN_NOT_FOUND = { message: 'Campaign not found.' };
const SUBSCRIBER_NOT_FOUND = { message: 'Subscriber with email does not exists.' };
const invalid = (errors: Record<string, string[]>) => ({ message: 'Validation failed', errors });

function testSend(campaignId: number | string, payload: unknown, h: Record<string, string> = headers) {
  return t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaignId}/test-send`, headers: h, payload: payload as object });
}

describe('POST /api/v2/campaigns/{messageId}/test-send', () => {
  test('sends one mail per address, answers the campaign, and changes nothing (status, deliveries)', async () => {
    const a = uniqueEmail('a');
    const b = uniqueEmail('b');
    await createSubscriber(t.db, { email: a });
    await createSubscriber(t.db, { email: b });
    const campaign = await createCampaign(t.db, { body: '<p>Hi</p>', fromField: 'news@example.com' });
    const before = t.smtp.messages.length;
    // The same address twice (in two spellings) is sent to once.
    const res = await testSend(campaign.id, { emails: [a, b.toUpperCase(), a] });
    assert.equal(res.statusCode, 200, res.body);
    const view = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}`, headers });
    assert.deepEqual(res.json(), view.json());
    assert.equal(res.json().message_metadata.status, 'draft');
    const mails = await t.smtp.waitFor(before + 2);
    assert.deepEqual(
      mails
        .slice(before)
        .map((m) => m.envelope)
        .sort((x, y) => x.to[0]!.localeCompare(y.to[0]!)),
      [
        { from: 'news@example.com', to: [a] },
        { from: 'news@example.com', to: [b] },
      ],
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(t.smtp.messages.length, before + 2);
    assert.equal((await t.db.select().from(deliveries).where(eq(deliveries.campaignId, campaign.id))).length, 0);
    const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, campaign.id));
    assert.equal(row!.status, 'draft');
    assert.equal(row!.updatedAt.getTime(), campaign.updatedAt.getTime());
  });

  test('every header a campaign mail carries; a non-ASCII subject and sender name are encoded', async () => {
    const email = uniqueEmail();
    const sub = await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, {
      subject: 'Grüße aus Köln – Ausgabe 7',
      body: '<p>x</p>',
      fromField: 'Redaktion Köln <news@example.com>',
      replyTo: 'Replies <replies@example.com>',
    });
    const before = t.smtp.messages.length;
    assert.equal((await testSend(campaign.id, { emails: [email] })).statusCode, 200);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    const parsed = mail!.parsed;
    assert.equal(parsed.subject, '(test) Grüße aus Köln – Ausgabe 7');
    assert.match(rawHeader(mail!, 'Subject')!, /^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=( =\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=)*$/);
    assert.deepEqual(parsed.from?.value, [{ name: 'Redaktion Köln', address: 'news@example.com' }]);
    assert.deepEqual(parsed.replyTo?.value, [{ name: 'Replies', address: 'replies@example.com' }]);
    assert.deepEqual(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : null, [{ name: '', address: email }]);
    assert.match(parsed.messageId!, new RegExp(`^<c${campaign.id}\\.s${sub.id}\\.[0-9a-f]{8}@localhost>$`));
    assert.ok(Math.abs(parsed.date!.getTime() - Date.now()) < 60_000);
    assert.match(rawHeader(mail!, 'Date')!, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
    assert.equal(rawHeader(mail!, 'MIME-Version'), '1.0');
    assert.equal(rawHeader(mail!, 'X-Mailroom-Campaign'), String(campaign.id));
    assert.equal(rawHeader(mail!, 'X-Mailroom-Subscriber'), sub.uniqueId);
    assert.equal(rawHeader(mail!, 'X-Mailroom-Delivery'), undefined, 'test sends have no delivery');
    assert.equal(rawHeader(mail!, 'List-Id'), `<campaign-${campaign.id}.localhost>`);
    assert.equal(rawHeader(mail!, 'Precedence'), 'bulk');
    assert.equal(rawHeader(mail!, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
    // The one-click link only: no mailto: that nothing would read (issue 14).
    const unsubscribe = /^<http:\/\/localhost:8080\/api\/v2\/unsubscribe\/([A-Za-z0-9_-]+)>$/.exec(rawHeader(mail!, 'List-Unsubscribe')!);
    assert.ok(unsubscribe, rawHeader(mail!, 'List-Unsubscribe'));
    assert.deepEqual(decodeUnsubscribeToken(t.ctx.secrets.linkToken, unsubscribe[1]!), { uniqueId: sub.uniqueId, campaignId: campaign.id });
    // Well-formed: CRLF only, header lines within 998 characters, body lines within 76.
    const raw = mail!.raw.toString('latin1');
    assert.doesNotMatch(raw, /[^\r]\n|\r(?!\n)/);
    const [head, ...rest] = raw.split('\r\n\r\n');
    for (const line of head!.split('\r\n')) assert.ok(line.length <= 998, line);
    for (const line of rest.join('\r\n\r\n').split('\r\n')) assert.ok(line.length <= 76, line);
    for (const name of ['from', 'to', 'subject', 'date', 'message-id', 'reply-to', 'list-unsubscribe']) {
      assert.equal(rawHeaders(mail!).get(name)?.length, 1, name);
    }
  });

  test('without a from field the mail comes from MAIL_FROM; without a reply-to there is no Reply-To', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { body: '<p>x</p>', fromField: '', subject: 'Plain subject' });
    const before = t.smtp.messages.length;
    assert.equal((await testSend(campaign.id, { emails: [email] })).statusCode, 200);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.parsed.from?.value, [{ name: 'Mailroom', address: 'mailroom@localhost' }]);
    assert.equal(mail!.envelope.from, 'mailroom@localhost');
    assert.equal(rawHeader(mail!, 'Subject'), '(test) Plain subject');
    assert.equal(rawHeader(mail!, 'Reply-To'), undefined);
    assert.match(rawHeader(mail!, 'List-Unsubscribe')!, /^<http:\/\/localhost:8080\/api\/v2\/unsubscribe\/[A-Za-z0-9_-]+>$/);
  });

  test('bad input: each answered with its status and message, nothing sent', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const listed = uniqueEmail('listed');
    await createSubscriber(t.db, { email: listed, blacklisted: true });
    const onList = uniqueEmail('entry');
    await createSubscriber(t.db, { email: onList });
    await t.db.insert(blacklist).values({ email: onList.toUpperCase() });
    const campaign = await createCampaign(t.db, { body: '<p>x</p>' });
    const cases: [string | number, unknown, number, unknown][] = [
      [campaign.id, {}, 422, invalid({ emails: ['This value should not be blank.'] })],
      [campaign.id, { emails: [] }, 422, invalid({ emails: ['This collection should contain 1 element or more.'] })],
      [campaign.id, { emails: 'a@example.com' }, 422, invalid({ emails: ['This value should be of type array.'] })],
      [
        campaign.id,
        { emails: [email, 'not an address', 7] },
        422,
        invalid({ 'emails[1]': ['This value is not a valid email address.'], 'emails[2]': ['This value should be of type string.'] }),
      ],
      [
        campaign.id,
        { emails: Array.from({ length: 51 }, (_, i) => `x${i}@example.com`) },
        422,
        invalid({ emails: ['This collection should contain 50 elements or less.'] }),
      ],
      [campaign.id, { emails: [email, 'nobody@example.com'] }, 404, SUBSCRIBER_NOT_FOUND],
      [
        campaign.id,
        { emails: [email, listed, onList] },
        422,
        invalid({
          'emails[1]': ['This address is blacklisted: no mail is sent to it, not even a test.'],
          'emails[2]': ['This address is blacklisted: no mail is sent to it, not even a test.'],
        }),
      ],
      [999_999, { emails: [email] }, 404, CAMPAIGN_NOT_FOUND],
      // The campaign is checked before the body.
      [999_999, { emails: [] }, 404, CAMPAIGN_NOT_FOUND],
      ['abc', { emails: [email] }, 404, { message: 'No route found for "POST http://localhost:80/api/v2/campaigns/abc/test-send"' }],
    ];
    const before = t.smtp.messages.length;
    for (const [id, payload, status, expected] of cases) {
      const res = await testSend(id, payload);
      assert.equal(res.statusCode, status, `${JSON.stringify(payload)}: ${res.body}`);
      assert.deepEqual(res.json(), expected);
    }
    const malformed = await t.inject({
      method: 'POST',
      url: `/api/v2/campaigns/${campaign.id}/test-send`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"emails": [',
    });
    assert.equal(malformed.statusCode, 400);
    assert.match(malformed.json().message, /^Invalid JSON: /);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(t.smtp.messages.length, before, 'nothing was sent');
  });

  test('authentication first (403 before 404), then the campaigns privilege', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { body: '<p>x</p>' });
    for (const id of [campaign.id, 999_999]) {
      const res = await testSend(id, { emails: [email] }, {});
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), NO_SESSION);
    }
    const { headers: limited } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const denied = await testSend(campaign.id, { emails: [email] }, limited);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to manage campaigns.' });
    const { headers: allowed } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    assert.equal((await testSend(campaign.id, { emails: [email] }, allowed)).statusCode, 200);
  });

  test('a mail the server refuses: 502 with its reply; a missing attachment file: 409', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { body: '<p>x</p>' });
    t.smtp.failNext(1, 550, 'Mailbox unavailable');
    const refused = await testSend(campaign.id, { emails: [email] });
    assert.equal(refused.statusCode, 502);
    assert.match(refused.json().message, new RegExp(`^The mail server did not accept the test mail to ${email}: 550 Mailbox unavailable$`));

    const { attachments } = await import('../../src/db/schema/index.js');
    const [row] = await t.db
      .insert(attachments)
      .values({ campaignId: campaign.id, filename: 'gone.pdf', mimeType: 'application/pdf', size: 3, contentHash: 'a'.repeat(64) })
      .returning();
    const missing = await testSend(campaign.id, { emails: [email] });
    assert.equal(missing.statusCode, 409, missing.body);
    assert.deepEqual(missing.json(), {
      message: `The campaign cannot be composed: The file of attachment ${row!.id} ("gone.pdf") is missing from storage.`,
    });
  });
});
