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

describe('PUT /api/v2/sessions/me: wrong current passwords are throttled as logins (LOGIN_MAX_FAILURES 3)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ loginMaxFailures: 3 });
  });
  after(() => app.close());

  const put = (headers: Record<string, string>, payload: object, remoteAddress: string) =>
    app.inject({ method: 'PUT', url: '/api/v2/sessions/me', headers, payload, remoteAddress });

  test('the 4th try after 3 wrong ones is 429 with Retry-After, even with the right password, and changes nothing', async () => {
    const s = await app.adminWithSession({ loginName: 'guessed.at', superUser: false });
    const login = (remoteAddress: string) =>
      app.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'guessed.at', password: PASSWORD }, remoteAddress });
    // The administrator's own addresses, which they have signed in from (issue 23: fresh addresses spend the login's
    // budget, so only these are spared it).
    for (const own of ['10.9.0.2', '10.9.0.3']) assert.equal((await login(own)).statusCode, 201);
    for (let i = 0; i < 3; i++) {
      const res = await put(s.headers, { current_password: `guess ${i}`, email: 'thief@example.com' }, '10.9.0.1');
      assert.equal(res.statusCode, 422, res.body);
    }
    const blocked = await put(s.headers, { current_password: PASSWORD, email: 'thief@example.com' }, '10.9.0.1');
    assert.equal(blocked.statusCode, 429);
    assert.deepEqual(blocked.json(), { message: 'Too many wrong current passwords. Try again later.' });
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= app.config.loginFailureWindow, `Retry-After ${retryAfter}`);
    const me = await app.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: s.headers });
    assert.equal(me.json().email, s.admin.email);

    // It is the login's count: that address cannot log in as them either, nor a fresh one; their own address can.
    assert.equal((await login('10.9.0.1')).statusCode, 429);
    assert.equal((await login('10.9.0.4')).statusCode, 429);
    assert.equal((await login('10.9.0.2')).statusCode, 201);
    const elsewhere = await put(s.headers, { current_password: PASSWORD, email: 'owner@example.com' }, '10.9.0.3');
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
    assert.equal(elsewhere.json().email, 'owner@example.com');
  });

  test('the right current password takes back the failures of that address', async () => {
    const s = await app.adminWithSession({ loginName: 'forgetful', superUser: false });
    for (let i = 0; i < 2; i++) assert.equal((await put(s.headers, { current_password: `typo ${i}` }, '10.9.1.1')).statusCode, 422);
    assert.equal((await put(s.headers, { current_password: PASSWORD }, '10.9.1.1')).statusCode, 200);
    for (let i = 0; i < 3; i++) assert.equal((await put(s.headers, { current_password: `typo again ${i}` }, '10.9.1.1')).statusCode, 422);
    assert.equal((await put(s.headers, { current_password: PASSWORD }, '10.9.1.1')).statusCode, 429);
  });

  test('20 parallel wrong guesses: 3 password checks (422), 17 × 429', async () => {
    const s = await app.adminWithSession({ loginName: 'besieged.self', superUser: false });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => put(s.headers, { current_password: `wrong ${i}` }, '10.9.2.1')));
    const codes = answers.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 422).length, 3, codes.join(' '));
    assert.equal(codes.filter((c) => c === 429).length, 17, codes.join(' '));
    for (const r of answers.filter((a) => a.statusCode === 429)) assert.ok(Number(r.headers['retry-after']) > 0);
  });
});
