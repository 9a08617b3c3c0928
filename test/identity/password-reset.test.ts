import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { administrators, passwordResetTokens, sessions } from '../../src/db/schema/index.js';
import { hashSecret, newSecret } from '../../src/identity/tokens.js';
import { createAdmin, createSessionKey } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ passwordResetUrl: 'https://admin.example.com/reset?token=' });
});
after(() => t.close());

const post = (path: string, payload?: unknown) =>
  t.inject({ method: 'POST', url: `/api/v2/password-reset/${path}`, ...(payload === undefined ? {} : { payload: payload as object }) });

/** Requests a reset and answers the token carried by the mail that arrived. */
async function requestToken(email: string): Promise<string> {
  const before = t.smtp.messages.length;
  const res = await post('request', { email });
  assert.equal(res.statusCode, 204, res.body);
  const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
  const match = /reset\?token=([0-9a-f]{32})/.exec(mail!.parsed.text ?? '');
  assert.ok(match, 'the mail carries the link with the token');
  return match[1]!;
}

async function insertToken(administratorId: number, expiresInSeconds: number): Promise<string> {
  const token = newSecret();
  await t.db.insert(passwordResetTokens).values({
    administratorId,
    tokenHash: hashSecret(token),
    expiresAt: new Date(Date.now() + expiresInSeconds * 1000),
  });
  return token;
}

const login = (loginName: string, password: string) =>
  t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: loginName, password } });

describe('the whole reset, through the mail', () => {
  test('request → mail → validate → reset → login with the new password only; token one-time; sessions ended', async () => {
    const admin = await createAdmin(t.db, { loginName: 'forgetful', email: 'Forgetful@Example.com', password: 'old password' });
    const session = await createSessionKey(t.db, admin.id);

    const res = await post('request', { email: 'forgetful@example.com' });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const [mail] = await t.smtp.waitFor(1);
    // To the stored address (nodemailer writes the domain part in lower case).
    assert.deepEqual(mail!.envelope.to, ['Forgetful@example.com']);
    assert.equal((mail!.parsed.to as { text: string }).text, 'Forgetful@example.com');
    assert.equal(mail!.parsed.subject, 'Reset your Mailroom password');
    const match = /https:\/\/admin\.example\.com\/reset\?token=([0-9a-f]{32})/.exec(mail!.parsed.text ?? '');
    assert.ok(match, 'link in the plain text');
    const [link, token] = match as unknown as [string, string];
    assert.ok(typeof mail!.parsed.html === 'string' && mail!.parsed.html.includes(`href="${link}"`), 'link in the HTML');

    const [stored] = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.administratorId, admin.id));
    assert.equal(stored?.tokenHash, hashSecret(token), 'only the hash is stored');
    const ttl = stored!.expiresAt.getTime() - Date.now();
    assert.ok(ttl > 86_390_000 && ttl <= 86_400_000, `valid 24 hours, got ${ttl} ms`);

    const valid = await post('validate', { token });
    assert.equal(valid.statusCode, 200);
    assert.deepEqual(valid.json(), { valid: true });

    const reset = await post('reset', { token, newPassword: 'brand new password' });
    assert.equal(reset.statusCode, 200);
    assert.deepEqual(reset.json(), { message: 'Password updated successfully' });

    assert.equal((await login('forgetful', 'brand new password')).statusCode, 201);
    assert.equal((await login('forgetful', 'old password')).statusCode, 401);

    const [row] = await t.db.select().from(administrators).where(eq(administrators.id, admin.id));
    assert.match(row!.passwordHash, /^scrypt\$/);
    assert.ok(row!.passwordChangedAt && Date.now() - row!.passwordChangedAt.getTime() < 60_000);

    const me = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: session.headers });
    assert.equal(me.statusCode, 403, 'the earlier session was ended');
    assert.equal((await t.db.select().from(sessions).where(eq(sessions.id, session.id))).length, 0);

    const again = await post('reset', { token, new_password: 'another password' });
    assert.equal(again.statusCode, 400);
    assert.deepEqual(again.json(), { message: 'Invalid or expired token' });
    assert.deepEqual((await post('validate', { token })).json(), { valid: false });
  });

  test('a new request replaces the earlier token', async () => {
    const admin = await createAdmin(t.db, { email: 'twice@example.com' });
    const first = await requestToken('twice@example.com');
    const second = await requestToken('twice@example.com');
    assert.notEqual(first, second);
    assert.deepEqual((await post('validate', { token: first })).json(), { valid: false });
    assert.deepEqual((await post('validate', { token: second })).json(), { valid: true });
    const rows = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.administratorId, admin.id));
    assert.equal(rows.length, 1);
  });
});

describe('POST /api/v2/password-reset/request', () => {
  test('missing, blank and invalid e-mail are 422 on email', async () => {
    for (const payload of [undefined, {}, { email: '' }, { email: 'not-an-email' }]) {
      const res = await post('request', payload);
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      const body = res.json();
      assert.equal(body.message, 'Validation failed');
      assert.deepEqual(Object.keys(body.errors), ['email']);
    }
    assert.deepEqual((await post('request', { email: 'not-an-email' })).json(), {
      message: 'Validation failed',
      errors: { email: ['This value is not a valid email address.'] },
    });
  });

  test('wrong JSON type is 422, malformed JSON is 400', async () => {
    const wrong = await post('request', { email: 42 });
    assert.equal(wrong.statusCode, 422);
    assert.deepEqual(wrong.json(), { message: 'Validation failed', errors: { email: ['This value should be of type string.'] } });
    const malformed = await t.inject({
      method: 'POST',
      url: '/api/v2/password-reset/request',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    assert.equal(malformed.statusCode, 400);
    assert.match(malformed.json().message, /^Invalid JSON: /);
  });

  test('unknown and disabled administrators get the same 204 as a known one, and no mail (issue 23)', async () => {
    await createAdmin(t.db, { email: 'gone@example.com', disabled: true });
    await createAdmin(t.db, { email: 'here@example.com' });
    const before = t.smtp.messages.length;
    const answers = [];
    for (const [i, email] of ['nobody@example.com', 'gone@example.com', 'here@example.com'].entries()) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/password-reset/request', remoteAddress: `192.0.2.${10 + i}`, payload: { email } });
      answers.push({ status: res.statusCode, body: res.body, type: res.headers['content-type'] ?? null });
    }
    assert.deepEqual(answers, Array(3).fill({ status: 204, body: '', type: null }));
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.envelope.to, ['here@example.com']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(t.smtp.messages.length, before + 1, 'only the known administrator gets a mail');
  });

  test('more than 3 requests for one administrator in 15 minutes: still 204, but no mail; other administrators are not affected', async () => {
    await createAdmin(t.db, { email: 'eager@example.com' });
    await createAdmin(t.db, { email: 'calm@example.com' });
    for (let i = 0; i < 3; i++) await requestToken('eager@example.com');
    const before = t.smtp.messages.length;
    const blocked = await post('request', { email: 'eager@example.com' });
    assert.equal(blocked.statusCode, 204, 'the answer does not tell that this address is an administrator over its limit');
    await requestToken('calm@example.com');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(t.smtp.messages.length, before + 1, 'no mail for the limited administrator');
  });

  test('one client address: 10 requests in 15 minutes, then 429 with Retry-After; another client is not held up', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v2/password-reset/request',
        remoteAddress: '203.0.113.77',
        payload: { email: `probe-${i}@example.com` },
      });
      codes.push(res.statusCode);
      if (res.statusCode === 429) {
        assert.deepEqual(res.json(), { message: 'Too many password reset requests from your address. Try again later.' });
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(retryAfter > 0 && retryAfter <= 1800, `Retry-After ${retryAfter}`);
      }
    }
    assert.deepEqual(codes, [...Array(10).fill(204), 429, 429]);
    const other = await t.inject({
      method: 'POST',
      url: '/api/v2/password-reset/request',
      remoteAddress: '203.0.113.78',
      payload: { email: 'probe-x@example.com' },
    });
    assert.equal(other.statusCode, 204);
  });

  test('a mail server refusing the mail: the answer is the same 204 and the token stays', async () => {
    const admin = await createAdmin(t.db, { email: 'bounced@example.com' });
    t.smtp.failNext(1, 550, 'Mailbox secretly unavailable');
    const res = await post('request', { email: 'bounced@example.com' });
    assert.equal(res.statusCode, 204);
    const rows = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.administratorId, admin.id));
    assert.equal(rows.length, 1);
  });

  test('the limit window ends after 15 minutes', async () => {
    const admin = await createAdmin(t.db, { email: 'patient@example.com' });
    await t.db.insert(passwordResetTokens).values({
      administratorId: admin.id,
      tokenHash: hashSecret(newSecret()),
      expiresAt: new Date(Date.now() + 3600_000),
      requestCount: 3,
      windowStartedAt: new Date(Date.now() - 16 * 60_000),
    });
    await requestToken('patient@example.com');
    const [row] = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.administratorId, admin.id));
    assert.equal(row?.requestCount, 1);
  });
});

describe('POST /api/v2/password-reset/validate', () => {
  test('an unknown token is not valid', async () => {
    const res = await post('validate', { token: 'invalid-token' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { valid: false });
  });

  test('an expired token is not valid and is deleted', async () => {
    const admin = await createAdmin(t.db);
    const token = await insertToken(admin.id, -60);
    assert.deepEqual((await post('validate', { token })).json(), { valid: false });
    const rows = await t.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.administratorId, admin.id));
    assert.equal(rows.length, 0);
  });

  test('missing, blank and wrong-typed token are 422; malformed JSON is 400', async () => {
    for (const payload of [undefined, {}, { token: ' ' }]) {
      const res = await post('validate', payload);
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors: { token: ['This value should not be blank.'] } });
    }
    const wrong = await post('validate', { token: 123 });
    assert.deepEqual(wrong.json(), { message: 'Validation failed', errors: { token: ['This value should be of type string.'] } });
    const malformed = await t.inject({
      method: 'POST',
      url: '/api/v2/password-reset/validate',
      headers: { 'content-type': 'application/json' },
      payload: 'nope',
    });
    assert.equal(malformed.statusCode, 400);
  });
});

describe('POST /api/v2/password-reset/reset', () => {
  test('an unknown token is 400', async () => {
    const res = await post('reset', { token: 'invalid-token', newPassword: 'newPassword123' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { message: 'Invalid or expired token' });
  });

  test('an expired token is 400 and the password stays', async () => {
    const admin = await createAdmin(t.db, { password: 'kept password' });
    const token = await insertToken(admin.id, -1);
    const res = await post('reset', { token, new_password: 'newPassword123' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { message: 'Invalid or expired token' });
    assert.equal((await login(admin.loginName, 'kept password')).statusCode, 201);
  });

  test('a token of a disabled administrator is 400', async () => {
    const admin = await createAdmin(t.db, { disabled: true });
    const token = await insertToken(admin.id, 3600);
    assert.deepEqual((await post('validate', { token })).json(), { valid: false });
    assert.equal((await post('reset', { token, new_password: 'newPassword123' })).statusCode, 400);
  });

  test('a short password is 422 and the token stays usable', async () => {
    const admin = await createAdmin(t.db);
    const token = await insertToken(admin.id, 3600);
    const res = await post('reset', { token, newPassword: 'short' });
    assert.equal(res.statusCode, 422);
    const body = res.json();
    assert.deepEqual(Object.keys(body.errors), ['new_password']);
    assert.match(body.errors.new_password[0], /^This value is too short/);
    assert.deepEqual((await post('validate', { token })).json(), { valid: true });
  });

  test('missing fields, too long and wrong types are 422; malformed JSON is 400', async () => {
    const missing = await post('reset', undefined);
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(missing.json(), {
      message: 'Validation failed',
      errors: { token: ['This value should not be blank.'], new_password: ['This value should not be blank.'] },
    });
    const long = await post('reset', { token: 'abc', new_password: 'x'.repeat(256) });
    assert.match(long.json().errors.new_password[0], /^This value is too long/);
    const wrong = await post('reset', { token: ['a'], new_password: 12345678 });
    assert.equal(wrong.statusCode, 422);
    assert.deepEqual(wrong.json(), {
      message: 'Validation failed',
      errors: { token: ['This value should be of type string.'], new_password: ['This value should be of type string.'] },
    });
    const malformed = await t.inject({
      method: 'POST',
      url: '/api/v2/password-reset/reset',
      headers: { 'content-type': 'application/json' },
      payload: '{token}',
    });
    assert.equal(malformed.statusCode, 400);
    assert.match(malformed.json().message, /^Invalid JSON: /);
  });
});
