import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { subscribers } from '../../src/db/schema/index.js';
import { encodePreferencesToken, today } from '../../src/sending/preferences-link.js';
import { createSubscriber } from '../factories.js';
import { mailQueueDrained, startTestApp, type TestApp } from '../helper.js';

/*
 * The address change (issues 22 and 23): the old address is told, with a link that changes it back; the links carry
 * nothing readable (the new address and the subscriber's unique id are encrypted inside).
 */

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

let n = 0;
const client = () => `198.51.100.${++n}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const emailOf = async (id: number) => (await t.db.select().from(subscribers).where(eq(subscribers.id, id)))[0]!.email;

/** Every readable run of a token's bytes: base64url decoded, as latin1 and UTF-8. */
const readable = (token: string) => {
  const bytes = Buffer.from(token, 'base64url');
  return bytes.toString('latin1') + bytes.toString('utf8');
};

describe('address change: undo link and tokens without personal data', () => {
  test('the change mails the old address a link that changes it back (GET asks, POST acts); the tokens hide the addresses and the uid', async () => {
    const sub = await createSubscriber(t.db, { email: 'old-home@example.com' });
    const preferences = encodePreferencesToken(t.ctx.secrets.linkToken, sub.uniqueId, today());
    const before = t.smtp.messages.length;
    const asked = await t.inject({
      method: 'POST',
      url: `/preferences/${preferences}`,
      headers: FORM,
      payload: 'action=email&email=new-home%40example.org',
      remoteAddress: client(),
    });
    assert.equal(asked.statusCode, 200);
    await mailQueueDrained(t);
    const [change] = t.smtp.messages.slice(before);
    assert.deepEqual(change!.envelope.to, ['new-home@example.org']);
    const changePath = new URL(/http:\/\/\S+\/preferences\/email\/[A-Za-z0-9_-]+/.exec(change!.parsed.text ?? '')![0]).pathname;
    const changeToken = changePath.split('/').pop()!;
    for (const secret of ['new-home', 'example.org', sub.uniqueId])
      assert.ok(!readable(changeToken).includes(secret), `${secret} readable in the token`);

    const done = await t.inject({ method: 'POST', url: changePath, headers: FORM, payload: 'confirm=yes', remoteAddress: client() });
    assert.equal(done.statusCode, 200);
    assert.equal(await emailOf(sub.id), 'new-home@example.org');
    await mailQueueDrained(t);
    const [undoMail] = t.smtp.messages.slice(before + 1);
    assert.deepEqual(undoMail!.envelope.to, ['old-home@example.com'], 'the old address is told');
    assert.equal(undoMail!.parsed.subject, 'Your e-mail address was changed');
    assert.ok(!undoMail!.parsed.text?.includes('new-home'), 'the old address is not told the new one');
    assert.match(undoMail!.parsed.text ?? '', /valid for 30 days/);
    const undoPath = new URL(/http:\/\/\S+\/preferences\/email-undo\/[A-Za-z0-9_-]+/.exec(undoMail!.parsed.text ?? '')![0]).pathname;
    const undoToken = undoPath.split('/').pop()!;
    for (const secret of ['old-home', 'example.com', sub.uniqueId])
      assert.ok(!readable(undoToken).includes(secret), `${secret} readable in the undo token`);
    // The change link does not work as an undo link, nor the other way round.
    assert.equal((await t.inject({ method: 'GET', url: `/preferences/email-undo/${changeToken}` })).statusCode, 404);
    assert.equal((await t.inject({ method: 'GET', url: `/preferences/email/${undoToken}` })).statusCode, 404);

    const ask = await t.inject({ method: 'GET', url: undoPath });
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /old-home@example\.com/);
    assert.match(ask.body, /<form method="post">/);
    assert.equal(await emailOf(sub.id), 'new-home@example.org', 'GET changes nothing');
    for (let i = 0; i < 2; i++) {
      const undone = await t.inject({ method: 'POST', url: undoPath, headers: FORM, payload: 'confirm=yes', remoteAddress: client() });
      assert.equal(undone.statusCode, 200);
      assert.match(undone.body, /We send our mail to old-home@example\.com again/);
    }
    assert.equal(await emailOf(sub.id), 'old-home@example.com');
    // A forged undo link: the error page, nothing changes.
    const forged = await t.inject({
      method: 'POST',
      url: `${undoPath.slice(0, -2)}AA`,
      headers: FORM,
      payload: 'confirm=yes',
      remoteAddress: client(),
    });
    assert.equal(forged.statusCode, 404);
  });
});
