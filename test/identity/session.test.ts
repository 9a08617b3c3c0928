import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { sessions } from '../../src/db/schema/index.js';
import { hashSecret } from '../../src/identity/tokens.js';
import { createAdmin, createSessionKey } from '../factories.js';
import { ATOM, atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ loginMaxFailures: 3 });
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };

describe('POST /api/v2/sessions', () => {
  test('logs in and answers the token; only its hash is stored', async () => {
    const admin = await createAdmin(t.db, { loginName: 'john.doe', password: 'Bazinga!' });
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/sessions',
      payload: { login_name: 'john.doe', password: 'Bazinga!', extra: 'ignored' },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, { id: body.id, key: body.key, expiry_date: atom(body.expiry_date) });
    assert.match(body.key, /^[0-9a-f]{32}$/);
    const [row] = await t.db.select().from(sessions).where(eq(sessions.id, body.id));
    assert.equal(row?.administratorId, admin.id);
    assert.equal(row?.keyHash, hashSecret(body.key));
    const ttl = row!.expiresAt.getTime() - Date.now();
    assert.ok(ttl > 3590_000 && ttl <= 3600_000, `expiry one hour from now, got ${ttl} ms`);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-security-policy'], "default-src 'none'");
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.ok(res.headers['x-request-id']);
  });

  test('accepts camelCase field names', async () => {
    await createAdmin(t.db, { loginName: 'camel', password: 'Bazinga!' });
    const res = await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { loginName: 'camel', password: 'Bazinga!' } });
    assert.equal(res.statusCode, 201);
  });

  test('wrong password, unknown login and disabled administrator are 401', async () => {
    await createAdmin(t.db, { loginName: 'disabled.one', password: 'Bazinga!', disabled: true });
    for (const payload of [
      { login_name: 'john.doe', password: 'wrong' },
      { login_name: 'nobody.here', password: 'Bazinga!' },
      { login_name: 'disabled.one', password: 'Bazinga!' },
    ]) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/sessions', payload, remoteAddress: '10.0.0.9' });
      assert.equal(res.statusCode, 401, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Not authorized' });
    }
  });

  test('missing and blank fields are 422 with snake_case keys', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/sessions',
      headers: { 'content-type': 'application/xml' },
      payload: '[]',
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: { login_name: ['This value should not be blank.'], password: ['This value should not be blank.'] },
    });
    const blank = await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: '  ', password: 'x' } });
    assert.deepEqual(blank.json(), { message: 'Validation failed', errors: { login_name: ['This value should not be blank.'] } });
    const empty = await t.inject({ method: 'POST', url: '/api/v2/sessions' });
    assert.equal(empty.statusCode, 422);
  });

  test('wrong JSON types are 422 on the field, never coerced', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 12, password: true } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: { login_name: ['This value should be of type string.'], password: ['This value should be of type string.'] },
    });
  });

  test('malformed JSON is 400', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/sessions',
      headers: { 'content-type': 'application/json' },
      payload: 'Here be dragons, but no JSON.',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /^Invalid JSON: /);
  });

  test('a body over the limit is 413', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/sessions',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ login_name: 'x'.repeat(t.config.bodyLimit), password: 'y' }),
    });
    assert.equal(res.statusCode, 413);
    assert.match(res.json().message, /too large/);
  });

  test('GET and PUT on /sessions are 405 with Allow', async () => {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await t.inject({ method, url: '/api/v2/sessions' });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers.allow, 'POST');
      assert.match(res.json().message, /^No route found for "(GET|PUT) http:\/\/.+\/api\/v2\/sessions": Method Not Allowed \(Allow: POST\)$/);
    }
  });

  test('repeated failures for one login name are 429 with Retry-After; an address the administrator used passes', async () => {
    await createAdmin(t.db, { loginName: 'target', password: 'Bazinga!' });
    const attempt = (password: string, remoteAddress: string) =>
      t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'target', password }, remoteAddress });
    // Issue 23: a fresh address no longer gets a check of its own (that let rotating addresses guess without limit);
    // the administrator's own address, one they have signed in from, does.
    assert.equal((await attempt('Bazinga!', '10.1.0.99')).statusCode, 201);
    for (let i = 0; i < 3; i++) assert.equal((await attempt(`guess${i}`, `10.1.0.${i}`)).statusCode, 401);
    const blocked = await attempt('Bazinga!', '10.1.0.0');
    assert.equal(blocked.statusCode, 429);
    assert.deepEqual(blocked.json(), { message: 'Too many failed login attempts. Try again later.' });
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= t.config.loginFailureWindow, `Retry-After ${retryAfter}`);
    // The address they use still gets its password checked: the administrator is not locked out.
    assert.equal((await attempt('Bazinga!', '10.1.0.99')).statusCode, 201);
    assert.equal((await attempt('Bazinga!', '10.1.0.98')).statusCode, 429, 'a fresh address spends the login’s budget');
    assert.equal((await attempt('Bazinga!', '10.1.0.1')).statusCode, 429);
  });

  test('repeated failures from one client address are 429 for any login name', async () => {
    for (let i = 0; i < 3; i++) {
      await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: `x${i}`, password: 'p' }, remoteAddress: '10.2.0.1' });
    }
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/sessions',
      payload: { login_name: 'camel', password: 'Bazinga!' },
      remoteAddress: '10.2.0.1',
    });
    assert.equal(res.statusCode, 429);
  });
});

describe('POST /api/v2/sessions: the throttle under parallel attempts (LOGIN_MAX_FAILURES 10)', () => {
  test('60 parallel wrong logins: 10 password checks (401), 50 × 429 with Retry-After; the admin still logs in elsewhere', async () => {
    const app = await startTestApp({ loginMaxFailures: 10 });
    try {
      await createAdmin(app.db, { loginName: 'besieged', password: 'Right-Password-1' });
      const attempt = (password: string, remoteAddress: string) =>
        app.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'besieged', password }, remoteAddress });
      // The administrator has signed in from their own address before (issue 23: only such an address is spared
      // the login's budget).
      assert.equal((await attempt('Right-Password-1', '198.51.100.7')).statusCode, 201);
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => attempt(`wrong-${i}`, '203.0.113.66')));
      const codes = answers.map((r) => r.statusCode);
      assert.equal(codes.filter((c) => c === 401).length, 10, codes.join(' '));
      assert.equal(codes.filter((c) => c === 429).length, 50, codes.join(' '));
      for (const r of answers.filter((a) => a.statusCode === 429)) assert.ok(Number(r.headers['retry-after']) > 0);
      assert.equal((await attempt('Right-Password-1', '198.51.100.7')).statusCode, 201);
      const attacker = await attempt('Right-Password-1', '203.0.113.66');
      assert.equal(attacker.statusCode, 429);
      assert.deepEqual(attacker.json(), { message: 'Too many failed login attempts. Try again later.' });
    } finally {
      await app.close();
    }
  });
});

describe('authentication on protected routes', () => {
  test('the key works as php-auth-pw, Basic password and Bearer token', async () => {
    const { admin, key } = await t.adminWithSession();
    for (const headers of [
      { 'php-auth-pw': key },
      { authorization: `Basic ${Buffer.from(`unused:${key}`).toString('base64')}` },
      { authorization: `Bearer ${key}` },
    ]) {
      const res = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers });
      assert.equal(res.statusCode, 200, JSON.stringify(headers));
      assert.equal(res.json().id, admin.id);
    }
  });

  test('missing, unknown, expired keys and disabled administrators are 403', async () => {
    const expiredAdmin = await createAdmin(t.db);
    const expired = await createSessionKey(t.db, expiredAdmin.id, -10);
    const disabledAdmin = await createAdmin(t.db, { disabled: true });
    const disabled = await createSessionKey(t.db, disabledAdmin.id);
    for (const headers of [
      {},
      { 'php-auth-pw': 'cfdf64eecbbf336628b0f3071adba762' },
      { authorization: 'Basic !!!not-base64' },
      { authorization: 'Digest abc' },
      expired.headers,
      disabled.headers,
    ]) {
      const res = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers });
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
      assert.deepEqual(res.json(), NO_SESSION);
    }
  });

  test('authentication is checked before the body is read', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: { 'content-type': 'application/json' },
      payload: 'not json',
    });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), NO_SESSION);
  });
});

describe('GET /api/v2/sessions/me', () => {
  test('answers the caller, whole', async () => {
    const { admin, headers } = await t.adminWithSession({
      loginName: 'me.myself',
      email: 'me@example.com',
      privileges: { subscribers: true, statistics: true },
    });
    const res = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body, {
      id: admin.id,
      login_name: 'me.myself',
      email: 'me@example.com',
      super_user: true,
      privileges: { subscribers: true, campaigns: false, statistics: true, settings: false },
      created_at: body.created_at,
      disabled: false,
    });
    assert.match(body.created_at, ATOM);
  });
});

describe('DELETE /api/v2/sessions/{sessionId}', () => {
  test('ends the own session: the key stops working', async () => {
    const { sessionId, headers } = await t.adminWithSession();
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/sessions/${sessionId}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const after = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers });
    assert.equal(after.statusCode, 403);
  });

  test("another administrator's session is 403 and kept; unknown is 404; non-numeric is a route 404", async () => {
    const other = await t.adminWithSession();
    const { headers } = await t.adminWithSession();
    const foreign = await t.inject({ method: 'DELETE', url: `/api/v2/sessions/${other.sessionId}`, headers });
    assert.equal(foreign.statusCode, 403);
    assert.deepEqual(foreign.json(), { message: 'You do not have access to this session.' });
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: other.headers })).statusCode, 200);

    const unknown = await t.inject({ method: 'DELETE', url: '/api/v2/sessions/999999', headers });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { message: 'Token not found.' });

    const word = await t.inject({ method: 'DELETE', url: '/api/v2/sessions/not-an-id', headers });
    assert.equal(word.statusCode, 404);
    assert.match(word.json().message, /^No route found for "DELETE http:\/\/.+\/api\/v2\/sessions\/not-an-id"$/);
  });

  test('without a key is 403', async () => {
    const res = await t.inject({ method: 'DELETE', url: '/api/v2/sessions/1' });
    assert.equal(res.statusCode, 403);
  });
});
