import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { administrators, sessions } from '../../src/db/schema/index.js';
import { createAdmin, createSessionKey } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

/*
 * Issue 23: an administrator with `settings` alone could create a super user, or set a super user's password and sign
 * in as them. Only super users grant super user or privileges they lack, and touch administrators with more rights.
 */

let t: TestApp;
let root: Awaited<ReturnType<TestApp['adminWithSession']>>;
let settingsOnly: Awaited<ReturnType<TestApp['adminWithSession']>>;
before(async () => {
  t = await startTestApp();
  root = await t.adminWithSession({ loginName: 'root.rights', email: 'root.rights@example.com' });
  settingsOnly = await t.adminWithSession({
    loginName: 'settings.only',
    email: 'settings.only@example.com',
    superUser: false,
    privileges: { settings: true },
  });
});
after(() => t.close());

const PASSWORD = 'a brand new password';

function login(login_name: string, password: string) {
  return t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name, password } });
}

function put(id: number, headers: Record<string, string>, payload: Record<string, unknown>) {
  return t.inject({ method: 'PUT', url: `/api/v2/administrators/${id}`, headers, payload });
}

describe('an administrator with settings but not super user', () => {
  test('cannot create a super user, nor grant a privilege they lack; may grant what they hold', async () => {
    const superUser = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: settingsOnly.headers,
      payload: { login_name: 'made.super', password: PASSWORD, email: 'made.super@example.com', super_user: true },
    });
    assert.equal(superUser.statusCode, 403);
    assert.deepEqual(superUser.json(), { message: 'Only a super user may make an administrator a super user.' });

    const campaigns = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: settingsOnly.headers,
      payload: { login_name: 'made.more', password: PASSWORD, email: 'made.more@example.com', privileges: { campaigns: true, subscribers: true } },
    });
    assert.equal(campaigns.statusCode, 403);
    assert.deepEqual(campaigns.json(), { message: 'You cannot grant privileges you do not have yourself: subscribers, campaigns.' });
    const stored = await t.db.select().from(administrators).where(eq(administrators.loginName, 'made.super'));
    assert.equal(stored.length, 0, 'nothing was created');

    const same = await t.inject({
      method: 'POST',
      url: '/api/v2/administrators',
      headers: settingsOnly.headers,
      payload: {
        login_name: 'made.same',
        password: PASSWORD,
        email: 'made.same@example.com',
        super_user: false,
        privileges: { settings: true, campaigns: false },
      },
    });
    assert.equal(same.statusCode, 201);
    assert.deepEqual(same.json(), {
      id: same.json().id,
      login_name: 'made.same',
      email: 'made.same@example.com',
      super_user: false,
      privileges: { subscribers: false, campaigns: false, statistics: false, settings: true },
      created_at: atom(same.json().created_at),
      disabled: false,
    });
  });

  test("cannot set a super user's password and sign in as them, nor change, disable or delete them", async () => {
    const victim = await createAdmin(t.db, { loginName: 'victim.super', email: 'victim.super@example.com' });
    const before = t.smtp.messages.length;
    const password = await put(victim.id, settingsOnly.headers, { password: PASSWORD });
    assert.equal(password.statusCode, 403);
    assert.deepEqual(password.json(), { message: 'Only a super user may change a super user.' });
    assert.equal((await login('victim.super', PASSWORD)).statusCode, 401, 'the password did not change');
    assert.equal((await login('victim.super', 'correct horse battery')).statusCode, 201);

    for (const payload of [{ email: 'attacker@example.com' }, { disabled: true }, { super_user: false }, { login_name: 'renamed' }]) {
      const res = await put(victim.id, settingsOnly.headers, payload);
      assert.equal(res.statusCode, 403, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Only a super user may change a super user.' });
    }
    // Refused before the body is read: an invalid body is still the 403.
    const invalid = await put(victim.id, settingsOnly.headers, { email: 'not an address' });
    assert.equal(invalid.statusCode, 403);

    const del = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${victim.id}`, headers: settingsOnly.headers });
    assert.equal(del.statusCode, 403);
    assert.deepEqual(del.json(), { message: 'Only a super user may delete a super user.' });

    const [row] = await t.db.select().from(administrators).where(eq(administrators.id, victim.id));
    assert.equal(row!.email, 'victim.super@example.com');
    assert.equal(row!.disabled, false);
    assert.equal(row!.superUser, true);
    assert.equal(t.smtp.messages.length, before, 'no mail');
  });

  test('cannot change or delete an administrator holding a privilege they lack (re-password, e-mail for a reset)', async () => {
    const richer = await createAdmin(t.db, {
      loginName: 'richer.admin',
      superUser: false,
      privileges: { settings: true, campaigns: true },
    });
    const message = 'Only a super user may change an administrator with privileges you do not have yourself: campaigns.';
    for (const payload of [{ password: PASSWORD }, { email: 'attacker2@example.com' }, { privileges: { campaigns: false } }]) {
      const res = await put(richer.id, settingsOnly.headers, payload);
      assert.equal(res.statusCode, 403, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message });
    }
    const del = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${richer.id}`, headers: settingsOnly.headers });
    assert.equal(del.statusCode, 403);
    assert.deepEqual(del.json(), {
      message: 'Only a super user may delete an administrator with privileges you do not have yourself: campaigns.',
    });
    assert.equal((await login('richer.admin', PASSWORD)).statusCode, 401);
  });

  test('may change an administrator within their rights, but grant them only what they hold', async () => {
    const peer = await createAdmin(t.db, {
      loginName: 'peer.admin',
      email: 'peer.admin@example.com',
      superUser: false,
      privileges: { settings: true },
    });
    const up = await put(peer.id, settingsOnly.headers, { super_user: true });
    assert.equal(up.statusCode, 403);
    assert.deepEqual(up.json(), { message: 'Only a super user may make an administrator a super user.' });
    const more = await put(peer.id, settingsOnly.headers, { privileges: { statistics: true } });
    assert.equal(more.statusCode, 403);
    assert.deepEqual(more.json(), { message: 'You cannot grant privileges you do not have yourself: statistics.' });
    // Themself too: no privilege they lack.
    const self = await put(settingsOnly.admin.id, settingsOnly.headers, { privileges: { subscribers: true } });
    assert.equal(self.statusCode, 403);

    const ok = await put(peer.id, settingsOnly.headers, {
      super_user: false,
      privileges: { campaigns: false, settings: true },
      email: 'peer.new@example.com',
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().email, 'peer.new@example.com');
    assert.equal(ok.json().super_user, false);
  });
});

describe('an administrator whose password someone else set is told by mail', () => {
  test('a super user sets another administrator’s password: they get a mail naming who, their sessions end', async () => {
    const target = await createAdmin(t.db, { loginName: 'told.admin', email: 'Told@Example.com', superUser: false });
    const session = await createSessionKey(t.db, target.id);
    const before = t.smtp.messages.length;
    const res = await put(target.id, root.headers, { password: PASSWORD });
    assert.equal(res.statusCode, 200);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.envelope.to, ['Told@example.com']);
    assert.equal(mail!.parsed.subject, 'Your Mailroom password was changed');
    assert.match(
      mail!.parsed.text ?? '',
      /^Hello told\.admin,\n\nThe password of your Mailroom administrator account was changed by the administrator "root\.rights" on \d{4}-\d\d-\d\d \d\d:\d\d UTC\./,
    );
    assert.ok(!(mail!.parsed.text ?? '').includes(PASSWORD), 'the password is not in the mail');
    assert.equal((await t.db.select().from(sessions).where(eq(sessions.id, session.id))).length, 0);
    assert.equal((await login('told.admin', PASSWORD)).statusCode, 201);
  });

  test('no mail for one’s own new password, for other changes, or to an administrator without an address', async () => {
    const before = t.smtp.messages.length;
    const own = await put(root.admin.id, root.headers, { password: 'the root password again' });
    assert.equal(own.statusCode, 200);
    const other = await createAdmin(t.db, { loginName: 'no.address', email: '' });
    assert.equal((await put(other.id, root.headers, { password: PASSWORD })).statusCode, 200);
    assert.equal((await login('no.address', PASSWORD)).statusCode, 201);
    const renamed = await createAdmin(t.db, { loginName: 'only.renamed' });
    assert.equal((await put(renamed.id, root.headers, { login_name: 'renamed.only' })).statusCode, 200);
    assert.equal(t.smtp.messages.length, before);
  });
});
