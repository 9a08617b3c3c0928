import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { administrators, loginFailures } from '../../src/db/schema/index.js';
import { StartupError } from '../../src/db/data-dir.js';
import { ensureFirstAdministrator } from '../../src/identity/bootstrap.js';
import { clientKey } from '../../src/shared/client-address.js';
import { createAdmin } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * Issue 23, the login throttle: a new client address always got one password check however often that login had
 * failed, so rotating addresses (an IPv6 /64 holds plenty) guessed without limit; behind a proxy without TRUST_PROXY,
 * ten bad logins locked out every administrator. And new administrator passwords need 12 characters.
 */

const RIGHT = 'the right password';
const TOO_MANY = { message: 'Too many failed login attempts. Try again later.' };

describe('the login throttle (LOGIN_MAX_FAILURES 3)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ loginMaxFailures: 3 });
  });
  after(() => t.close());

  const attempt = (login_name: string, password: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name, password }, remoteAddress, headers });

  test('every new address spends from the login’s budget: the fourth fresh address is refused before any check', async () => {
    await createAdmin(t.db, { loginName: 'rotated', password: RIGHT });
    // The administrator signs in from home once: that address is theirs from now on.
    assert.equal((await attempt('rotated', RIGHT, '198.51.100.10')).statusCode, 201);
    for (let i = 1; i <= 3; i++) assert.equal((await attempt('rotated', `guess ${i}`, `203.0.113.${i}`)).statusCode, 401);
    for (const fresh of ['203.0.113.4', '2001:db8:77::1', '192.0.2.200']) {
      const res = await attempt('rotated', RIGHT, fresh);
      assert.equal(res.statusCode, 429, fresh);
      assert.deepEqual(res.json(), TOO_MANY);
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter > 0 && retryAfter <= t.config.loginFailureWindow, `Retry-After ${retryAfter}`);
    }
    // Not locked out: from the address they have used, the administrator still signs in.
    assert.equal((await attempt('rotated', RIGHT, '198.51.100.10')).statusCode, 201);
    // Another login is not touched by this one's budget.
    await createAdmin(t.db, { loginName: 'bystander', password: RIGHT });
    assert.equal((await attempt('bystander', RIGHT, '203.0.113.50')).statusCode, 201);
  });

  test('an IPv6 client counts by its /64: stepping through one’s own network buys nothing', async () => {
    for (let i = 1; i <= 3; i++) {
      assert.equal((await attempt(`nobody${i}`, 'guess', `2001:db8:1:2::${i.toString(16)}`)).statusCode, 401);
    }
    await createAdmin(t.db, { loginName: 'v6.admin', password: RIGHT });
    const sameNet = await attempt('v6.admin', RIGHT, '2001:db8:1:2:ffff:ffff:ffff:fffe');
    assert.equal(sameNet.statusCode, 429);
    assert.equal((await attempt('v6.admin', RIGHT, '2001:db8:1:3::1')).statusCode, 201, 'the next /64 is another client');
    const rows = await t.db.select().from(loginFailures).where(eq(loginFailures.loginName, 'nobody1'));
    assert.deepEqual(
      rows.map((r) => r.clientIp),
      ['2001:db8:1:2::/64'],
    );
  });

  test('one shared address (a proxy without TRUST_PROXY): failures lock out the guessed logins, not the administrators who use it', async () => {
    await createAdmin(t.db, { loginName: 'behind.proxy', password: RIGHT });
    assert.equal((await attempt('behind.proxy', RIGHT, '10.20.0.1')).statusCode, 201);
    for (let i = 1; i <= 3; i++) assert.equal((await attempt(`guessed${i}`, 'guess', '10.20.0.1')).statusCode, 401);
    assert.equal((await attempt('guessed4', 'guess', '10.20.0.1')).statusCode, 429, 'the address has used its budget');
    assert.equal((await attempt('behind.proxy', RIGHT, '10.20.0.1')).statusCode, 201, 'an administrator who signed in from it still does');
    // Guessing at that administrator from the shared address: three tries, then only that login waits there.
    for (let i = 1; i <= 3; i++) assert.equal((await attempt('behind.proxy', `guess ${i}`, '10.20.0.1')).statusCode, 401);
    assert.equal((await attempt('behind.proxy', RIGHT, '10.20.0.1')).statusCode, 429);
  });
});

describe('TRUST_PROXY names the client address the throttle counts', () => {
  async function failedFrom(overrides: Parameters<typeof startTestApp>[0], headers: Record<string, string>, remoteAddress: string) {
    const t = await startTestApp(overrides);
    try {
      const login = `proxied-${Math.random().toString(36).slice(2)}`;
      const res = await t.inject({
        method: 'POST',
        url: '/api/v2/sessions',
        payload: { login_name: login, password: 'guess' },
        remoteAddress,
        headers,
      });
      assert.equal(res.statusCode, 401);
      const rows = await t.db.select().from(loginFailures).where(eq(loginFailures.loginName, login));
      return rows.map((r) => r.clientIp);
    } finally {
      await t.close();
    }
  }

  test('false: the connection’s address; a hop count: that many proxies; addresses: only those proxies are trusted', async () => {
    const xff = { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' };
    assert.deepEqual(await failedFrom({ trustProxy: false }, xff, '10.0.0.5'), ['10.0.0.5']);
    assert.deepEqual(await failedFrom({ trustProxy: 1 }, xff, '10.0.0.5'), ['203.0.113.9']);
    assert.deepEqual(await failedFrom({ trustProxy: 2 }, xff, '10.0.0.5'), ['198.51.100.1']);
    assert.deepEqual(await failedFrom({ trustProxy: '10.0.0.5' }, xff, '10.0.0.5'), ['203.0.113.9']);
    assert.deepEqual(await failedFrom({ trustProxy: '10.0.0.0/8' }, xff, '10.0.0.5'), ['203.0.113.9']);
    // Sent from an address that is not the named proxy, the header is the client's own word: not believed.
    assert.deepEqual(await failedFrom({ trustProxy: '10.0.0.0/8' }, xff, '192.0.2.7'), ['192.0.2.7']);
    // The forwarded address counts by its /64 too.
    assert.deepEqual(await failedFrom({ trustProxy: 1 }, { 'x-forwarded-for': '2001:db8:5:6:7::8' }, '10.0.0.5'), ['2001:db8:5:6::/64']);
  });
});

describe('client addresses as counted', () => {
  test('IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as the IPv4 address', () => {
    assert.equal(clientKey('192.0.2.1'), '192.0.2.1');
    assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientKey('2001:DB8:a:b:c:d:e:f'), '2001:db8:a:b::/64');
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    assert.equal(clientKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(clientKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
    assert.equal(clientKey('unknown'), 'unknown');
  });
});

describe('new administrator passwords need 12 characters', () => {
  let t: TestApp;
  let su: Awaited<ReturnType<TestApp['adminWithSession']>>;
  before(async () => {
    t = await startTestApp();
    su = await t.adminWithSession({ password: 'short1!x' });
  });
  after(() => t.close());

  const SHORT = 'eleven char';
  const tooShort = (res: { statusCode: number; json(): { errors: Record<string, string[]> } }, field: string) => {
    assert.equal(res.statusCode, 422);
    assert.deepEqual(Object.keys(res.json().errors), [field]);
    assert.match(res.json().errors[field]![0]!, /^This value is too short\. It should have 12 characters or more\.$/);
  };

  test('create, change, own change and reset refuse 11 characters and take 12', async () => {
    const create = (password: string) =>
      t.inject({
        method: 'POST',
        url: '/api/v2/administrators',
        headers: su.headers,
        payload: { login_name: `pw${password.length}`, password, email: `pw${password.length}@example.com` },
      });
    tooShort(await create(SHORT), 'password');
    const created = await create('twelve chars');
    assert.equal(created.statusCode, 201);

    const change = (password: string) =>
      t.inject({ method: 'PUT', url: `/api/v2/administrators/${created.json().id}`, headers: su.headers, payload: { password } });
    tooShort(await change(SHORT), 'password');
    assert.equal((await change('twelve chars')).statusCode, 200);

    // A stored password shorter than that still works (this super user's has 8), and changes to a long one only.
    const own = (password: string) =>
      t.inject({ method: 'PUT', url: '/api/v2/sessions/me', headers: su.headers, payload: { current_password: 'short1!x', password } });
    tooShort(await own(SHORT), 'password');
    assert.equal(
      (await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: su.admin.loginName, password: 'short1!x' } })).statusCode,
      201,
    );

    const reset = await t.inject({ method: 'POST', url: '/api/v2/password-reset/reset', payload: { token: 'a'.repeat(32), new_password: SHORT } });
    tooShort(reset, 'new_password');
  });

  test('ADMIN_PASSWORD: 12 characters to create the administrator; an existing one’s current shorter password still starts', async () => {
    const make = async (login: string, password: string) => {
      const app = await startTestApp({ admin: { login, password, email: '' } });
      try {
        return await ensureFirstAdministrator(app.ctx).then(
          (r) => r.kind,
          (err: unknown) => err,
        );
      } finally {
        await app.close();
      }
    };
    const refused = await make('short.boss', 'eight ch');
    assert.ok(refused instanceof StartupError && refused.exitCode === 78, String(refused));
    assert.match(refused.message, /^ADMIN_PASSWORD must have 12 characters or more to set a new password/);
    assert.equal(await make('long.boss', 'twelve chars'), 'configured');

    const app = await startTestApp({ admin: { login: 'old.boss', password: 'eight ch', email: '' } });
    try {
      await createAdmin(app.db, { loginName: 'old.boss', password: 'eight ch' });
      assert.equal((await ensureFirstAdministrator(app.ctx)).kind, 'configured');
      await app.db
        .update(administrators)
        .set({ passwordHash: (await createAdmin(app.db, { password: 'another stored one' })).passwordHash })
        .where(eq(administrators.loginName, 'old.boss'));
      await assert.rejects(ensureFirstAdministrator(app.ctx), StartupError, 'a short ADMIN_PASSWORD that is not the stored one is a new password');
    } finally {
      await app.close();
    }
  });
});
