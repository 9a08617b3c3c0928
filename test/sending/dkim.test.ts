import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createAdmin, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import type { ReceivedMail } from '../smtp-sink.js';
import { attachFile, rawHeaders, uniqueEmail } from './compose-fixtures.js';
import { bothPass, testKeys, verify } from './dkim-fixtures.js';
import { listWithMembers, mailsOf, sendableCampaign, withWorker } from './send-fixtures.js';

/*
 * DKIM signing end to end: mail composed, signed, sent by Mailroom's SMTP client (or nodemailer, for system mail)
 * into the sink, and every signature checked by mailauth's verifier against the published record.
 */

const keys = testKeys('example.com');
let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp({ dkim: keys, mailFrom: 'Mailroom <mailroom@example.com>' });
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

async function testSend(campaignId: number, emails: string[]): Promise<ReceivedMail[]> {
  const before = t.smtp.messages.length;
  const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaignId}/test-send`, headers, payload: { emails } });
  assert.equal(res.statusCode, 200, res.body);
  return (await t.smtp.waitFor(before + emails.length)).slice(before);
}

async function recipient(): Promise<string> {
  const email = uniqueEmail();
  await createSubscriber(t.db, { email, confirmed: true });
  return email;
}

describe('campaign mail is signed with RSA-SHA256 and Ed25519-SHA256, and mailauth verifies both', () => {
  test('plain text, lines starting with a dot, a long non-ASCII subject and From name', async () => {
    const campaign = await sendableCampaign(t.db, [], {
      sendFormat: 'text',
      subject: `Überraschung für alle Leserinnen und Leser — ${'eine sehr lange Betreffzeile '.repeat(4)}ñ`,
      fromField: 'Zoë Ärger-Öffentlichkeitsarbeit <news@example.com>',
      textBody: '.one dot at the start\n..two dots\n.\nA line with trailing spaces   \n\tand\t tabs\n\n\n',
      body: '.one dot at the start\n..two dots\n.\nA line with trailing spaces   \n\tand\t tabs\n\n\n',
    });
    const [mail] = await testSend(campaign.id, [await recipient()]);
    assert.deepEqual(await verify(mail!.raw, keys), bothPass());
    assert.match(mail!.parsed.text ?? '', /^\.one dot at the start\n\.\.two dots\n\.\n/);
    assert.equal(mail!.parsed.subject, `(test) Überraschung für alle Leserinnen und Leser — ${'eine sehr lange Betreffzeile '.repeat(4)}ñ`);
    // The header names From, Subject and To once more than they occur: none can be added without breaking it.
    const signature = rawHeaders(mail!).get('dkim-signature')![0]!.replace(/\s+/g, '');
    const h = /;h=([^;]+);/.exec(signature)![1]!.split(':');
    for (const name of ['from', 'subject', 'to']) assert.equal(h.filter((n) => n === name).length, 2, name);
    for (const name of ['date', 'message-id', 'mime-version', 'content-type', 'list-unsubscribe', 'list-unsubscribe-post', 'list-id']) {
      assert.ok(h.includes(name), name);
    }
  });

  test('HTML with an attachment (multipart), twice from one compilation: the shared tail is hashed from its cache', async () => {
    const campaign = await sendableCampaign(t.db, [], {
      body: '<p>Hello [EMAIL], see <a href="https://example.org/a">this</a>.</p>\n.<p>dot line</p>',
      subject: 'With attachment',
    });
    await attachFile(t, campaign.id, 'report ü.pdf', 'application/pdf', randomBytes(70_000));
    const mails = await testSend(campaign.id, [await recipient(), await recipient(), await recipient()]);
    for (const mail of mails) {
      assert.deepEqual(await verify(mail.raw, keys), bothPass());
      assert.equal(mail.parsed.attachments.length, 1);
    }
  });

  test('a message changed after signing fails verification (the check can fail)', async () => {
    const campaign = await sendableCampaign(t.db, [], { body: '<p>Original text</p>' });
    const [mail] = await testSend(campaign.id, [await recipient()]);
    const tampered = Buffer.from(mail!.raw.toString('latin1').replace('Original text', 'Changed! text'), 'latin1');
    // mailauth says `neutral` when the body hash does not match, `fail` when the signature over the headers does not.
    assert.deepEqual(
      (await verify(tampered, keys)).map((v) => v.result),
      ['neutral', 'neutral'],
    );
    const retitled = Buffer.from(mail!.raw.toString('latin1').replace('Subject: (test) ', 'Subject: (TEST) '), 'latin1');
    assert.deepEqual(
      (await verify(retitled, keys)).map((v) => v.result),
      ['fail', 'fail'],
    );
  });

  test('a From address below the key domain is signed as the key domain (DMARC relaxed alignment)', async () => {
    const campaign = await sendableCampaign(t.db, [], { fromField: 'News <news@lists.example.com>' });
    const [mail] = await testSend(campaign.id, [await recipient()]);
    assert.deepEqual(await verify(mail!.raw, keys), bothPass());
  });

  test('a From domain without a key goes out unsigned', async () => {
    const campaign = await sendableCampaign(t.db, [], { fromField: 'News <news@example.net>' });
    const [mail] = await testSend(campaign.id, [await recipient()]);
    assert.equal(rawHeaders(mail!).get('dkim-signature'), undefined);
    assert.deepEqual(await verify(mail!.raw, keys), [{ domain: 'undefined', selector: 'undefined', algorithm: 'undefined', result: 'none' }]);
  });

  test('the worker signs every campaign mail it sends', async () => {
    const { list } = await listWithMembers(t.db, 4);
    const campaign = await sendableCampaign(t.db, [list.id], { body: '<p>Dear [EMAIL]</p>' });
    const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers });
    assert.equal(res.statusCode, 200, res.body);
    const summary = await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.equal(summary.sent, 4);
    const mails = mailsOf(t.smtp, campaign.id);
    assert.equal(mails.length, 4);
    for (const mail of mails) assert.deepEqual(await verify(mail.raw, keys), bothPass());
  });
});

describe('system mail is signed too', () => {
  test('the password-reset mail (nodemailer-built) verifies', async () => {
    await createAdmin(t.db, { loginName: `signed${Date.now()}`, email: 'signed-admin@example.org' });
    const before = t.smtp.messages.length;
    const res = await t.inject({ method: 'POST', url: '/api/v2/password-reset/request', payload: { email: 'signed-admin@example.org' } });
    assert.equal(res.statusCode, 204, res.body);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(await verify(mail!.raw, keys), bothPass());
    assert.deepEqual(mail!.envelope, { from: 'mailroom@example.com', to: ['signed-admin@example.org'] });
  });
});
