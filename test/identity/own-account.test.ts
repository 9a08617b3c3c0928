import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createAdmin, createSessionKey } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const PASSWORD = 'correct horse battery';

function login(login_name: string, password: string) {
  return t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name, password } });
}

function putMe(headers: Record<string, string>, payload: unknown) {
  return t.inject({ method: 'PUT', url: '/api/v2/sessions/me', headers, payload: payload as object });
}

describe('PUT /api/v2/sessions/me', () => {
  test('an administrator without the settings privilege changes their own e-mail and password', async () => {
    const s = await t.adminWithSession({ loginName: 'self.service', superUser: false, privileges: { campaigns: true } });
    const other = await createSessionKey(t.db, s.admin.id);
    const res = await putMe(s.headers, { current_password: PASSWORD, email: 'new.self@example.com', password: 'a new secret' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: s.admin.id,
      login_name: 'self.service',
      email: 'new.self@example.com',
      super_user: false,
      privileges: { subscribers: false, campaigns: true, statistics: false, settings: false },
      created_at: atom(res.json().created_at),
      disabled: false,
    });
    assert.equal((await login('self.service', PASSWORD)).statusCode, 401);
    assert.equal((await login('self.service', 'a new secret')).statusCode, 201);
    // The caller's session stays; their other sessions end.
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: s.headers })).statusCode, 200);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: other.headers })).statusCode, 403);
  });

  test('a wrong current password changes nothing: 422 at current_password', async () => {
    const s = await t.adminWithSession({ superUser: false });
    const res = await putMe(s.headers, { current_password: 'not the password', email: 'taken.over@example.com' });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: { current_password: ['The current password is not right.'] },
    });
    const me = await t.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: s.headers });
    assert.equal(me.json().email, s.admin.email);
  });

  test('the current password is required; privileges, super user and login name sent are ignored', async () => {
    const s = await t.adminWithSession({ superUser: false });
    const missing = await putMe(s.headers, { email: 'x@example.com' });
    assert.equal(missing.statusCode, 422);
    assert.ok(missing.json().errors.current_password, JSON.stringify(missing.json()));
    for (const extra of [{ privileges: { settings: true } }, { super_user: true }, { login_name: 'someone.else' }]) {
      const res = await putMe(s.headers, { current_password: PASSWORD, ...extra });
      assert.equal(res.statusCode, 200, JSON.stringify(extra));
      assert.equal(res.json().super_user, false);
      assert.equal(res.json().login_name, s.admin.loginName);
      assert.deepEqual(res.json().privileges, { subscribers: false, campaigns: false, statistics: false, settings: false });
    }
  });

  test("another administrator's e-mail: 409; a too short password: 422; no session: 403", async () => {
    const taken = await createAdmin(t.db, { email: 'already.here@example.com' });
    const s = await t.adminWithSession({ superUser: false });
    const conflict = await putMe(s.headers, { current_password: PASSWORD, email: taken.email });
    assert.equal(conflict.statusCode, 409);
    assert.deepEqual(conflict.json(), { message: 'Email already exists.' });
    const short = await putMe(s.headers, { current_password: PASSWORD, password: 'abc' });
    assert.equal(short.statusCode, 422);
    assert.ok(short.json().errors.password);
    const anonymous = await putMe({}, { current_password: PASSWORD, email: 'y@example.com' });
    assert.equal(anonymous.statusCode, 403);
    assert.deepEqual(anonymous.json(), { message: 'No valid session key was provided as basic auth password.' });
  });
});
