import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, ne } from 'drizzle-orm';
import { administrators } from '../../src/db/schema/index.js';
import { createAdmin, createSessionKey } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let su: Awaited<ReturnType<TestApp['adminWithSession']>>;
before(async () => {
  t = await startTestApp();
  su = await t.adminWithSession({ loginName: 'root.admin', email: 'root@example.com' });
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const NOT_ALLOWED = { message: 'You are not allowed to manage administrators.' };
const NOT_FOUND = { message: 'Administrator not found.' };
const NONE = { subscribers: false, campaigns: false, statistics: false, settings: false };

function login(login_name: string, password: string) {
  return t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name, password } });
}

describe('GET /api/v2/administrators', () => {
  test('cursor pages with the exact envelope', async () => {
    const a = await createAdmin(t.db, { loginName: 'page.a' });
    await createAdmin(t.db, { loginName: 'page.b' });
    const total = (await t.db.select().from(administrators)).length;
    const res = await t.inject({ method: 'GET', url: `/api/v2/administrators?after_id=${a.id - 1}&limit=1`, headers: su.headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      items: [
        {
          id: a.id,
          login_name: 'page.a',
          email: a.email,
          super_user: true,
          privileges: NONE,
          created_at: atom(res.json().items[0].created_at),
          disabled: false,
        },
      ],
      pagination: { total, limit: 1, has_more: true, next_cursor: a.id },
    });
    const next = await t.inject({ method: 'GET', url: `/api/v2/administrators?after_id=${a.id}`, headers: su.headers });
    const body = next.json();
    assert.equal(body.items[0].login_name, 'page.b');
    assert.deepEqual(body.pagination, {
      total,
      limit: 25,
      has_more: false,
      next_cursor: body.items[body.items.length - 1].id,
    });
    const empty = await t.inject({ method: 'GET', url: '/api/v2/administrators?after_id=2000000000', headers: su.headers });
    assert.deepEqual(empty.json(), { items: [], pagination: { total, limit: 25, has_more: false, next_cursor: null } });
  });

  test('limit is clamped and non-numeric values fall back', async () => {
    for (const [query, limit] of [
      ['limit=0', 1],
      ['limit=-5', 1],
      ['limit=1000', 100],
      ['limit=abc', 1],
      ['after_id=abc', 25],
    ] as const) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/administrators?${query}`, headers: su.headers });
      assert.equal(res.statusCode, 200, query);
      const body = res.json();
      assert.equal(body.pagination.limit, limit, query);
      assert.equal(body.items.length, Math.min(limit, body.pagination.total), query);
      if (query === 'after_id=abc') assert.equal(body.items[0].id, (await t.db.select().from(administrators))[0]!.id);
    }
  });
});

describe('POST /api/v2/administrators', () => {
  test('creates with 201 and the whole body; super_user defaults to false', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: {
        login_name: 'new.admin',
        password: 'secret one two',
        email: 'new@example.com',
        privileges: { subscribers: true, statistics: false },
      },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      login_name: 'new.admin',
      email: 'new@example.com',
      super_user: false,
      privileges: { subscribers: true, campaigns: false, statistics: false, settings: false },
      created_at: atom(body.created_at),
      disabled: false,
    });
    const read = await t.inject({ method: 'GET', url: `/api/v2/administrators/${body.id}`, headers: su.headers });
    assert.deepEqual(read.json(), body);
  });

  test('accepts camelCase input and stores privileges as sent', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: {
        loginName: 'camel.admin',
        password: 'secret twelve!',
        email: 'camel@example.com',
        superUser: true,
        privileges: { subscribers: true, campaigns: true, statistics: false, settings: true },
      },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.equal(body.login_name, 'camel.admin');
    assert.equal(body.super_user, true);
    assert.deepEqual(body.privileges, { subscribers: true, campaigns: true, statistics: false, settings: true });
  });

  test('409 for a taken login or e-mail, case-insensitively', async () => {
    await createAdmin(t.db, { loginName: 'Taken.Login', email: 'Taken@Example.com' });
    const login = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: { login_name: 'taken.login', password: 'secret one two', email: 'free@example.com' },
    });
    assert.equal(login.statusCode, 409);
    assert.deepEqual(login.json(), { message: 'Login already exists.' });
    const email = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: { login_name: 'free.login', password: 'secret one two', email: 'TAKEN@example.COM' },
    });
    assert.equal(email.statusCode, 409);
    assert.deepEqual(email.json(), { message: 'Email already exists.' });
  });

  test('422 for short login and password, an invalid e-mail and wrong JSON types', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: { login_name: 'ab', password: 'abc', email: 'not-an-email' },
    });
    assert.equal(res.statusCode, 422);
    const body = res.json();
    assert.equal(body.message, 'Validation failed');
    assert.deepEqual(Object.keys(body.errors).sort(), ['email', 'login_name', 'password']);
    for (const messages of Object.values(body.errors)) assert.ok(Array.isArray(messages) && messages.length > 0);

    const types = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: { login_name: 'typed.admin', password: 'secret one two', email: 'typed@example.com', privileges: { subscribers: 'yes' } },
    });
    assert.equal(types.statusCode, 422);
    assert.deepEqual(Object.keys(types.json().errors), ['privileges.subscribers']);

    const superUser = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: { login_name: 'typed.admin', password: 'secret one two', email: 'typed@example.com', super_user: 'true' },
    });
    assert.equal(superUser.statusCode, 422);
    assert.deepEqual(Object.keys(superUser.json().errors), ['super_user']);

    const missing = await t.inject({ method: 'POST', url: '/api/v2/administrators', headers: su.headers, payload: {} });
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(Object.keys(missing.json().errors).sort(), ['email', 'login_name', 'password']);

    const malformed = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: { ...su.headers, 'content-type': 'application/json' },
      payload: '{"login_name":',
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(typeof malformed.json().message, 'string');
  });

  test('an unknown privilege key is dropped silently', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: su.headers,
      payload: { login_name: 'odd.priv', password: 'secret one two', email: 'odd@example.com', privileges: { campaigns: true, bogus: true } },
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json().privileges, { subscribers: false, campaigns: true, statistics: false, settings: false });
  });
});

describe('GET /api/v2/administrators/{adminId}', () => {
  test('200, 404 and non-numeric ids', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/v2/administrators/${su.admin.id}`, headers: su.headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: su.admin.id,
      login_name: 'root.admin',
      email: 'root@example.com',
      super_user: true,
      privileges: NONE,
      created_at: atom(res.json().created_at),
      disabled: false,
    });
    const missing = await t.inject({ method: 'GET', url: '/api/v2/administrators/999999', headers: su.headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND);
    const word = await t.inject({ method: 'GET', url: '/api/v2/administrators/abc', headers: su.headers });
    assert.equal(word.statusCode, 404);
    assert.deepEqual(word.json(), { message: 'No route found for "GET http://localhost:80/api/v2/administrators/abc"' });
  });
});

describe('PUT /api/v2/administrators/{adminId}', () => {
  test('changes only the fields and privilege flags sent', async () => {
    const target = await createAdmin(t.db, {
      loginName: 'upd.one',
      email: 'upd.one@example.com',
      superUser: false,
      privileges: { subscribers: true, campaigns: true },
    });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.id}`,
      headers: su.headers,
      payload: { email: 'upd.changed@example.com', privileges: { campaigns: false, statistics: true } },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: target.id,
      login_name: 'upd.one',
      email: 'upd.changed@example.com',
      super_user: false,
      privileges: { subscribers: true, campaigns: false, statistics: true, settings: false },
      created_at: atom(res.json().created_at),
      disabled: false,
    });
    const nothing = await t.inject({ method: 'PUT', url: `/api/v2/administrators/${target.id}`, headers: su.headers, payload: {} });
    assert.equal(nothing.statusCode, 200);
    assert.deepEqual(nothing.json(), res.json());
    const nulls = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.id}`,
      headers: su.headers,
      payload: { login_name: null, email: null, super_user: null, privileges: null, password: null },
    });
    assert.equal(nulls.statusCode, 200);
    assert.deepEqual(nulls.json(), res.json());
  });

  test("re-sending one's own login and e-mail is fine; another admin's login is 409", async () => {
    const target = await createAdmin(t.db, { loginName: 'self.same', email: 'self.same@example.com' });
    const same = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.id}`,
      headers: su.headers,
      payload: { login_name: 'SELF.same', email: 'self.same@example.com' },
    });
    assert.equal(same.statusCode, 200);
    const other = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.id}`,
      headers: su.headers,
      payload: { login_name: 'ROOT.admin' },
    });
    assert.equal(other.statusCode, 409);
    assert.deepEqual(other.json(), { message: 'Login already exists.' });
    const otherEmail = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.id}`,
      headers: su.headers,
      payload: { email: 'Root@Example.com' },
    });
    assert.equal(otherEmail.statusCode, 409);
    assert.deepEqual(otherEmail.json(), { message: 'Email already exists.' });
  });

  test('404 comes before body validation; 422 for bad bodies', async () => {
    const res = await t.inject({
      method: 'PUT',
      url: '/api/v2/administrators/999999',
      headers: su.headers,
      payload: { login_name: 1, email: 'bad' },
    });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), NOT_FOUND);
    const word = await t.inject({ method: 'PUT', url: '/api/v2/administrators/abc', headers: su.headers, payload: {} });
    assert.equal(word.statusCode, 404);
    const bad = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${su.admin.id}`,
      headers: su.headers,
      payload: { email: 'bad', privileges: { settings: 1 } },
    });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(Object.keys(bad.json().errors).sort(), ['email', 'privileges.settings']);
  });

  test('a new password works for login and ends their other sessions but not the caller’s', async () => {
    const target = await createAdmin(t.db, { loginName: 'pw.change', password: 'old password' });
    const own = await createSessionKey(t.db, target.id);
    const other = await createSessionKey(t.db, target.id);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.id}`,
      headers: own.headers,
      payload: { password: 'new password' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal((await login('pw.change', 'old password')).statusCode, 401);
    assert.equal((await login('pw.change', 'new password')).statusCode, 201);
    const stillOwn = await t.inject({ method: 'GET', url: `/api/v2/administrators/${target.id}`, headers: own.headers });
    assert.equal(stillOwn.statusCode, 200);
    const gone = await t.inject({ method: 'GET', url: `/api/v2/administrators/${target.id}`, headers: other.headers });
    assert.equal(gone.statusCode, 403);
    assert.deepEqual(gone.json(), NO_SESSION);
  });

  test("a super user changing someone else's password ends all of that admin's sessions", async () => {
    const target = await createAdmin(t.db, { loginName: 'pw.other', password: 'old password' });
    const theirs = await createSessionKey(t.db, target.id);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.id}`,
      headers: su.headers,
      payload: { password: 'another one here' },
    });
    assert.equal(res.statusCode, 200);
    const gone = await t.inject({ method: 'GET', url: '/api/v2/administrators', headers: theirs.headers });
    assert.equal(gone.statusCode, 403);
    const mine = await t.inject({ method: 'GET', url: '/api/v2/administrators', headers: su.headers });
    assert.equal(mine.statusCode, 200);
  });
});

describe('DELETE /api/v2/administrators/{adminId}', () => {
  test('204, gone, and their sessions stop working', async () => {
    const target = await createAdmin(t.db, { loginName: 'del.me' });
    const theirs = await createSessionKey(t.db, target.id);
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${target.id}`, headers: su.headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const read = await t.inject({ method: 'GET', url: `/api/v2/administrators/${target.id}`, headers: su.headers });
    assert.equal(read.statusCode, 404);
    const session = await t.inject({ method: 'GET', url: '/api/v2/administrators', headers: theirs.headers });
    assert.equal(session.statusCode, 403);
    assert.deepEqual(session.json(), NO_SESSION);
    const again = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${target.id}`, headers: su.headers });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), NOT_FOUND);
  });

  test('the last enabled super user cannot be deleted', async () => {
    // Only `su` stays an enabled super user: the others become plain or disabled.
    const others = await t.db.select().from(administrators).where(ne(administrators.id, su.admin.id));
    const saved = others.map((o) => ({ id: o.id, superUser: o.superUser }));
    await t.db.update(administrators).set({ superUser: false }).where(ne(administrators.id, su.admin.id));
    const disabledSuper = await createAdmin(t.db, { loginName: 'disabled.super', disabled: true });
    try {
      const res = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${su.admin.id}`, headers: su.headers });
      assert.equal(res.statusCode, 409);
      assert.deepEqual(res.json(), { message: 'The last super user cannot be deleted.' });
      const disabled = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${disabledSuper.id}`, headers: su.headers });
      assert.equal(disabled.statusCode, 204);
    } finally {
      for (const o of saved) await t.db.update(administrators).set({ superUser: o.superUser }).where(eq(administrators.id, o.id));
    }
  });
});

describe('privileges', () => {
  test('a non-super-user without `settings` is 403 on every route', async () => {
    const plain = await t.adminWithSession({ superUser: false, privileges: { subscribers: true, campaigns: true, statistics: true } });
    for (const [method, url] of routes(plain.admin.id)) {
      const res = await t.inject({ method, url, headers: plain.headers, payload: method === 'POST' || method === 'PUT' ? {} : undefined });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.deepEqual(res.json(), NOT_ALLOWED, `${method} ${url}`);
    }
  });

  test('a non-super-user with `settings` may manage administrators', async () => {
    const manager = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const list = await t.inject({ method: 'GET', url: '/api/v2/administrators', headers: manager.headers });
    assert.equal(list.statusCode, 200);
    const created = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: manager.headers,
      payload: { login_name: 'by.manager', password: 'secret one two', email: 'by.manager@example.com' },
    });
    assert.equal(created.statusCode, 201);
    const id = created.json().id;
    const updated = await t.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${id}`,
      headers: manager.headers,
      payload: { email: 'bm@example.com' },
    });
    assert.equal(updated.statusCode, 200);
    const deleted = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${id}`, headers: manager.headers });
    assert.equal(deleted.statusCode, 204);
  });

  test('403 without a session key on every route', async () => {
    for (const [method, url] of routes(su.admin.id)) {
      for (const headers of [{}, { 'php-auth-pw': 'not-a-key' }]) {
        const res = await t.inject({ method, url, headers, payload: method === 'POST' || method === 'PUT' ? {} : undefined });
        assert.equal(res.statusCode, 403, `${method} ${url}`);
        assert.deepEqual(res.json(), NO_SESSION, `${method} ${url}`);
      }
    }
  });
});

describe('order of checks', () => {
  test('authentication and privilege come before the 404 of a missing administrator', async () => {
    const plain = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const url = '/api/v2/administrators/999999';
      const payload = method === 'PUT' ? { email: 'bad' } : undefined;
      const anonymous = await t.inject({ method, url, payload });
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, NO_SESSION], method);
      const denied = await t.inject({ method, url, headers: plain.headers, payload });
      assert.deepEqual([denied.statusCode, denied.json()], [403, NOT_ALLOWED], method);
    }
  });
});

function routes(id: number): ['GET' | 'POST' | 'PUT' | 'DELETE', string][] {
  return [
    ['GET', '/api/v2/administrators'],
    ['POST', '/api/v2/administrators'],
    ['GET', `/api/v2/administrators/${id}`],
    ['PUT', `/api/v2/administrators/${id}`],
    ['DELETE', `/api/v2/administrators/${id}`],
  ];
}

describe('PUT /api/v2/administrators/{adminId} with disabled (ours)', () => {
  const put = (id: number, payload: object, headers = su.headers) =>
    t.inject({ method: 'PUT', url: `/api/v2/administrators/${id}`, headers, payload });

  test('disabling ends their sessions and refuses their login; enabling lets them sign in again', async () => {
    const target = await createAdmin(t.db, { loginName: 'to.disable', superUser: false });
    const session = await createSessionKey(t.db, target.id);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: session.headers })).statusCode, 200);

    const off = await put(target.id, { disabled: true });
    assert.equal(off.statusCode, 200);
    assert.equal(off.json().disabled, true);
    const me = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: session.headers });
    assert.equal(me.statusCode, 403);
    assert.deepEqual(me.json(), NO_SESSION);
    const refused = await login('to.disable', 'correct horse battery');
    assert.equal(refused.statusCode, 401);
    assert.deepEqual(refused.json(), { message: 'Not authorized' });
    const listed = await t.inject({ method: 'GET', url: `/api/v2/administrators/${target.id}`, headers: su.headers });
    assert.equal(listed.json().disabled, true);

    const on = await put(target.id, { disabled: false });
    assert.equal(on.json().disabled, false);
    // The session ended by disabling stays ended.
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: session.headers })).statusCode, 403);
    assert.equal((await login('to.disable', 'correct horse battery')).statusCode, 201);
  });

  test('nobody disables themself: 409, and nothing changes', async () => {
    const self = await t.adminWithSession({ loginName: 'self.disabler' });
    const res = await put(self.admin.id, { disabled: true, email: 'self.disabler.new@example.com' }, self.headers);
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { message: 'You cannot disable yourself.' });
    const me = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: self.headers });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().email, self.admin.email);
    assert.equal(me.json().disabled, false);
  });

  test('a non-boolean disabled is a 422 at disabled', async () => {
    const target = await createAdmin(t.db, { superUser: false });
    const res = await put(target.id, { disabled: 'yes' });
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.disabled, JSON.stringify(res.json()));
  });

  // Before issue 23 an administrator with `settings` reached the last-super-user rule (409); now only a super user may
  // change a super user, so that administrator is refused before it (administrator-rights.test.ts has the rest).
  test('the last enabled super user cannot be disabled by an administrator with the settings privilege: 403', async () => {
    const manager = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const others = await t.db.select().from(administrators).where(ne(administrators.id, su.admin.id));
    await t.db.update(administrators).set({ disabled: true }).where(ne(administrators.id, su.admin.id));
    await t.db.update(administrators).set({ disabled: false }).where(eq(administrators.id, manager.admin.id));
    try {
      const res = await put(su.admin.id, { disabled: true }, manager.headers);
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), { message: 'Only a super user may change a super user.' });
    } finally {
      for (const o of others) await t.db.update(administrators).set({ disabled: o.disabled }).where(eq(administrators.id, o.id));
    }
    const still = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: su.headers });
    assert.equal(still.json().disabled, false);
  });
});
