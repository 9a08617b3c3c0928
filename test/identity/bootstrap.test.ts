import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { administrators } from '../../src/db/schema/index.js';
import { ensureFirstAdministrator, signInHelp } from '../../src/identity/bootstrap.js';
import { hashPassword } from '../../src/identity/password.js';
import { createAdmin } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

const ALL = { subscribers: true, campaigns: true, statistics: true, settings: true };

function login(t: TestApp, login_name: string, password: string) {
  return t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name, password } });
}

async function readAdmin(t: TestApp, loginName: string) {
  const [row] = await t.db.select().from(administrators).where(eq(administrators.loginName, loginName));
  assert.ok(row, `${loginName} exists`);
  const session = await login(t, 'probe', 'probe password');
  const res = await t.inject({ method: 'GET', url: `/api/v2/administrators/${row.id}`, headers: { 'php-auth-pw': session.json().key } });
  return res.json();
}

describe('without ADMIN_LOGIN', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.db.delete(administrators);
  });
  after(() => t.close());

  test('an empty table gets `admin` with a random password that logs in', async () => {
    const result = await ensureFirstAdministrator(t.ctx);
    assert.equal(result.kind, 'generated');
    assert.ok(result.kind === 'generated');
    assert.equal(result.login, 'admin');
    assert.ok(result.password.length >= 16);
    const res = await login(t, 'admin', result.password);
    assert.equal(res.statusCode, 201);
    const rows = await t.db.select().from(administrators);
    assert.equal(rows.length, 1);
    const me = await t.inject({ method: 'GET', url: `/api/v2/administrators/${rows[0]!.id}`, headers: { 'php-auth-pw': res.json().key } });
    assert.deepEqual(me.json(), {
      id: rows[0]!.id,
      login_name: 'admin',
      email: 'admin@mailroom.invalid',
      super_user: true,
      privileges: ALL,
      created_at: atom(me.json().created_at),
      disabled: false,
    });
  });

  test('unchanged when administrators exist', async () => {
    const before = await t.db.select().from(administrators);
    assert.deepEqual(await ensureFirstAdministrator(t.ctx), { kind: 'unchanged' });
    assert.deepEqual(await t.db.select().from(administrators), before);
  });

  test('two generated passwords differ', async () => {
    await t.db.delete(administrators);
    const first = await ensureFirstAdministrator(t.ctx);
    await t.db.delete(administrators);
    const second = await ensureFirstAdministrator(t.ctx);
    assert.ok(first.kind === 'generated' && second.kind === 'generated');
    assert.notEqual(first.password, second.password);
  });
});

describe('with ADMIN_LOGIN and ADMIN_PASSWORD', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ admin: { login: 'boss', password: 'configured secret', email: 'boss@example.com' } });
    await t.db.delete(administrators);
    await createAdmin(t.db, { loginName: 'probe', password: 'probe password' });
  });
  after(() => t.close());

  test('creates that super user even when other administrators exist', async () => {
    assert.deepEqual(await ensureFirstAdministrator(t.ctx), { kind: 'configured', login: 'boss' });
    assert.equal((await login(t, 'boss', 'configured secret')).statusCode, 201);
    const boss = await readAdmin(t, 'boss');
    assert.deepEqual(boss, {
      id: boss.id,
      login_name: 'boss',
      email: 'boss@example.com',
      super_user: true,
      privileges: ALL,
      created_at: atom(boss.created_at),
      disabled: false,
    });
  });

  test('a second call resets its password, re-enables it and makes it super user again', async () => {
    await t.db
      .update(administrators)
      .set({ passwordHash: await hashPassword('changed meanwhile'), disabled: true, superUser: false })
      .where(eq(administrators.loginName, 'boss'));
    assert.equal((await login(t, 'boss', 'configured secret')).statusCode, 401);
    assert.deepEqual(await ensureFirstAdministrator(t.ctx), { kind: 'configured', login: 'boss' });
    assert.equal((await login(t, 'boss', 'changed meanwhile')).statusCode, 401);
    assert.equal((await login(t, 'boss', 'configured secret')).statusCode, 201);
    assert.equal((await readAdmin(t, 'boss')).super_user, true);
    assert.equal((await t.db.select().from(administrators).where(eq(administrators.loginName, 'boss'))).length, 1);
  });
});

describe('the start banner: how to get into the console (issue 25)', () => {
  const url = 'http://localhost:8080/admin/';
  test('first start: the console, the login, the password and where to change it; no API call to make', () => {
    const text = signInHelp(url, { kind: 'generated', login: 'admin', password: 'Zx9-secret' });
    assert.equal(
      text,
      'First start: created the super user "admin" with password: Zx9-secret\n' +
        'Open http://localhost:8080/admin/ and sign in as admin with that password; change it under "Your account".\n',
    );
    assert.doesNotMatch(text, /POST \/api\/v2\/sessions/);
  });
  test('ADMIN_LOGIN/ADMIN_PASSWORD: that account', () => {
    assert.equal(
      signInHelp(url, { kind: 'configured', login: 'boss' }),
      'Admin console: http://localhost:8080/admin/ (sign in as boss with ADMIN_PASSWORD).\n',
    );
  });
  test('a later start: where to sign in, and how to get back in without the password', () => {
    const text = signInHelp(url, { kind: 'unchanged' });
    assert.match(text, /^Admin console: http:\/\/localhost:8080\/admin\/ \(sign in with your login name and password\)\.\n/);
    assert.match(
      text,
      /Forgot the password\? "Forgot password\?" on the sign-in page mails a reset link .* or set ADMIN_LOGIN and ADMIN_PASSWORD and restart/,
    );
  });
});
