import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { blacklist, subscribers } from '../../src/db/schema/index.js';
import { createSubscriber } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };

async function flagOf(id: number) {
  const [row] = await t.db.select().from(subscribers).where(eq(subscribers.id, id));
  return row!.blacklisted;
}

describe('POST /api/v2/blacklist/add', () => {
  test('adds the address, flags its subscriber, and is idempotent', async () => {
    const { admin, headers } = await t.adminWithSession();
    const sub = await createSubscriber(t.db, { email: 'Spam.Me@example.com' });
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/blacklist/add',
      headers,
      payload: { email: 'spam.me@example.com', reason: 'Asked us to stop' },
    });
    assert.equal(res.statusCode, 201);
    const entry = res.json();
    assert.deepEqual(entry, { email: 'spam.me@example.com', added: atom(entry.added), reason: 'Asked us to stop' });
    assert.equal(await flagOf(sub.id), true);
    const [row] = await t.db.select().from(blacklist).where(eq(blacklist.email, 'spam.me@example.com'));
    assert.equal(row?.addedBy, admin.id);

    const again = await t.inject({
      method: 'POST',
      url: '/api/v2/blacklist/add',
      headers,
      payload: { email: 'SPAM.ME@example.com', reason: 'another reason' },
    });
    assert.equal(again.statusCode, 201);
    assert.deepEqual(again.json(), entry, 'the existing entry, unchanged');
    assert.equal((await t.db.select().from(blacklist)).filter((r) => r.email.toLowerCase() === 'spam.me@example.com').length, 1);
  });

  test('flags a subscriber whose address was already in the table but not flagged (reference [bug] 11)', async () => {
    const { headers } = await t.adminWithSession();
    await t.db.insert(blacklist).values({ email: 'half@example.com', reason: 'old' });
    const sub = await createSubscriber(t.db, { email: 'half@example.com' });
    const res = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers, payload: { email: 'half@example.com' } });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), { email: 'half@example.com', added: atom(res.json().added), reason: 'old' });
    assert.equal(await flagOf(sub.id), true);
  });

  test('an address without subscriber is added; reason is optional', async () => {
    const { headers } = await t.adminWithSession();
    const res = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers, payload: { email: 'nobody@example.com' } });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), { email: 'nobody@example.com', added: atom(res.json().added), reason: null });
  });

  test('missing or invalid e-mail and wrong types are 422; malformed JSON 400; no key and no privilege 403', async () => {
    const { headers } = await t.adminWithSession();
    const missing = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers, payload: {} });
    assert.deepEqual(
      [missing.statusCode, missing.json()],
      [422, { message: 'Validation failed', errors: { email: ['This value should not be blank.'] } }],
    );
    const invalid = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers, payload: { email: 'nope', reason: 3 } });
    assert.deepEqual(invalid.json(), {
      message: 'Validation failed',
      errors: { email: ['This value is not a valid email address.'], reason: ['This value should be of type string.'] },
    });
    const bad = await t.inject({
      method: 'POST',
      url: '/api/v2/blacklist/add',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: 'nope',
    });
    assert.equal(bad.statusCode, 400);
    const anon = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', payload: { email: 'a@example.com' } });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
    const { headers: weak } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers: weak, payload: { email: 'a@example.com' } });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to add emails to blacklist.' }]);
  });
});

describe('GET /api/v2/blacklist/check/{email} and /info/{email}', () => {
  test('check and info of a listed address, case-insensitively', async () => {
    const { headers } = await t.adminWithSession();
    const added = await t.inject({
      method: 'POST',
      url: '/api/v2/blacklist/add',
      headers,
      payload: { email: 'listed@example.com', reason: 'bounces' },
    });
    const check = await t.inject({ method: 'GET', url: '/api/v2/blacklist/check/LISTED@example.com', headers });
    assert.deepEqual([check.statusCode, check.json()], [200, { blacklisted: true, reason: 'bounces' }]);
    const info = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/Listed@Example.com', headers });
    assert.deepEqual([info.statusCode, info.json()], [200, added.json()]);
  });

  test("an address not listed: check false, info 404 with phpList's error body and a message", async () => {
    const { headers } = await t.adminWithSession();
    const check = await t.inject({ method: 'GET', url: '/api/v2/blacklist/check/clean@example.com', headers });
    assert.deepEqual(check.json(), { blacklisted: false, reason: null });
    const info = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/clean@example.com', headers });
    assert.deepEqual(
      [info.statusCode, info.json()],
      [404, { message: 'Email clean@example.com is not blacklisted', error: 'Email clean@example.com is not blacklisted' }],
    );
    const odd = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/not-an-email', headers });
    assert.deepEqual(
      [odd.statusCode, odd.json()],
      [404, { message: 'Email not-an-email is not blacklisted', error: 'Email not-an-email is not blacklisted' }],
    );
  });

  test('a subscriber flagged elsewhere counts as blacklisted, with no entry date', async () => {
    const { headers } = await t.adminWithSession();
    await createSubscriber(t.db, { email: 'flagged@example.com', blacklisted: true });
    const check = await t.inject({ method: 'GET', url: '/api/v2/blacklist/check/flagged@example.com', headers });
    assert.deepEqual(check.json(), { blacklisted: true, reason: null });
    const info = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/flagged@example.com', headers });
    assert.deepEqual(info.json(), { email: 'flagged@example.com', added: null, reason: null });
  });

  test('no key and no privilege are 403 with their messages', async () => {
    const { headers: weak } = await t.adminWithSession({ superUser: false, privileges: { statistics: true } });
    for (const [path, message] of [
      ['check', 'You are not allowed to check blacklisted emails.'],
      ['info', 'You are not allowed to view blacklist information.'],
    ] as const) {
      const anon = await t.inject({ method: 'GET', url: `/api/v2/blacklist/${path}/test@example.com` });
      assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
      const denied = await t.inject({ method: 'GET', url: `/api/v2/blacklist/${path}/test@example.com`, headers: weak });
      assert.deepEqual([denied.statusCode, denied.json()], [403, { message }]);
    }
  });
});

describe('DELETE /api/v2/blacklist/remove/{email}', () => {
  test('removes the entry and clears the subscriber flag; removing again is still 204', async () => {
    const { headers } = await t.adminWithSession();
    const sub = await createSubscriber(t.db, { email: 'sorry@example.com' });
    await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers, payload: { email: 'sorry@example.com' } });
    assert.equal(await flagOf(sub.id), true);
    const res = await t.inject({ method: 'DELETE', url: '/api/v2/blacklist/remove/SORRY@example.com', headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal(await flagOf(sub.id), false);
    const check = await t.inject({ method: 'GET', url: '/api/v2/blacklist/check/sorry@example.com', headers });
    assert.deepEqual(check.json(), { blacklisted: false, reason: null });
    const info = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/sorry@example.com', headers });
    assert.equal(info.statusCode, 404);
    const again = await t.inject({ method: 'DELETE', url: '/api/v2/blacklist/remove/sorry@example.com', headers });
    assert.equal(again.statusCode, 204);
  });

  test('clears a flag set without an entry', async () => {
    const { headers } = await t.adminWithSession();
    const sub = await createSubscriber(t.db, { email: 'only-flag@example.com', blacklisted: true });
    const res = await t.inject({ method: 'DELETE', url: '/api/v2/blacklist/remove/only-flag@example.com', headers });
    assert.equal(res.statusCode, 204);
    assert.equal(await flagOf(sub.id), false);
  });

  test('no key and no privilege are 403', async () => {
    const anon = await t.inject({ method: 'DELETE', url: '/api/v2/blacklist/remove/test@example.com' });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
    const { headers: weak } = await t.adminWithSession({ superUser: false });
    const denied = await t.inject({ method: 'DELETE', url: '/api/v2/blacklist/remove/test@example.com', headers: weak });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to remove emails from blacklist.' }]);
  });
});
