import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import type { ReceivedMail } from '../smtp-sink.js';
import { createAttribute, rawHeaders, setAttribute, uniqueEmail } from './compose-fixtures.js';
import { sendableCampaign } from './send-fixtures.js';

/*
 * Placeholders in the subject and the From name, filled per recipient like the body's: RFC 2047 for what is not
 * ASCII, and no header injection from attribute values (line ends and control characters removed).
 */

let t: TestApp;
let headers: Record<string, string>;
let firstName: Awaited<ReturnType<typeof createAttribute>>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
  firstName = await createAttribute(t.db, 'First name', 'textline');
});
after(() => t.close());

async function testSend(campaignId: number, emails: string[]): Promise<ReceivedMail[]> {
  const before = t.smtp.messages.length;
  const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaignId}/test-send`, headers, payload: { emails } });
  assert.equal(res.statusCode, 200, res.body);
  const mails = (await t.smtp.waitFor(before + emails.length)).slice(before);
  return emails.map((email) => mails.find((m) => m.envelope.to[0] === email)!);
}

async function reader(name: string | null): Promise<string> {
  const email = uniqueEmail();
  const s = await createSubscriber(t.db, { email, confirmed: true });
  if (name !== null) await setAttribute(t.db, s.id, firstName.id, name);
  return email;
}

describe('personalised subject and From name', () => {
  test('filled per recipient, defaults for empty values, non-ASCII encoded (RFC 2047), static text untouched', async () => {
    const campaign = await sendableCampaign(t.db, [], {
      subject: 'Hello [FIRST NAME%%reader], news for [EMAIL] [UNKNOWN]',
      fromField: '[FIRST NAME%%Team] at News <news@example.com>',
    });
    const zoe = await reader('Zoë');
    const anon = await reader(null);
    const [a, b] = await testSend(campaign.id, [zoe, anon]);
    assert.equal(a!.parsed.subject, `(test) Hello Zoë, news for ${zoe} [UNKNOWN]`);
    assert.deepEqual(a!.parsed.from!.value, [{ name: 'Zoë at News', address: 'news@example.com' }]);
    assert.match(rawHeaders(a!).get('subject')![0]!, /^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=( =\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=)*$/);
    assert.match(rawHeaders(a!).get('from')![0]!, /^=\?UTF-8\?B\?.*\?= <news@example\.com>$/);
    assert.equal(b!.parsed.subject, `(test) Hello reader, news for ${anon} [UNKNOWN]`);
    assert.equal(rawHeaders(b!).get('subject')![0], `(test) Hello reader, news for ${anon} [UNKNOWN]`);
    assert.deepEqual(b!.parsed.from!.value, [{ name: 'Team at News', address: 'news@example.com' }]);
  });

  test('an attribute value with line ends and control characters cannot add a header', async () => {
    const campaign = await sendableCampaign(t.db, [], { subject: 'Hi [FIRST NAME]!', fromField: '"[FIRST NAME]" <news@example.com>' });
    const evil = await reader('Eve\r\nBcc: victim@example.org\r\n\r\nbody\u0007\u001b[31m');
    const [mail] = await testSend(campaign.id, [evil]);
    const block = mail!.raw.toString('latin1').split('\r\n\r\n')[0]!;
    assert.doesNotMatch(block, /^Bcc:/im);
    assert.equal(rawHeaders(mail!).get('bcc'), undefined);
    assert.deepEqual(mail!.envelope.to, [evil]);
    assert.equal(mail!.parsed.subject, '(test) Hi Eve Bcc: victim@example.org body [31m!');
    assert.deepEqual(mail!.parsed.from!.value, [{ name: 'Eve Bcc: victim@example.org body [31m', address: 'news@example.com' }]);
    // Every header line is printable ASCII.
    assert.doesNotMatch(block, /[^\x20-\x7e\r\n\t]/);
  });
});
