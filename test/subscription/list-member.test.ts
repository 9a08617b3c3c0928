import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq, inArray } from 'drizzle-orm';
import { blacklist, subscribers, subscriptions } from '../../src/db/schema/index.js';
import { toSubscriberList } from '../../src/subscription/list.repository.js';
import { createAdmin, createList, createSubscriber, subscribe } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const DENIED = { message: 'Access denied.' };
const NOT_FOUND = { message: 'Subscriber list not found.' };

type SubscriberRow = typeof subscribers.$inferSelect;
type ListRow = Parameters<typeof toSubscriberList>[0];

const fullSubscriber = (s: SubscriberRow, lists: ListRow[]) => ({
  id: s.id,
  email: s.email,
  created_at: atom(s.createdAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')),
  updated_at: atom(s.updatedAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')),
  confirmed: s.confirmed,
  blacklisted: s.blacklisted,
  bounce_count: s.bounceCount,
  unique_id: s.uniqueId,
  uuid: '',
  html_email: s.htmlEmail,
  disabled: s.disabled,
  subscribed_lists: lists.map(toSubscriberList),
  history: [],
});

async function subscriberByEmail(email: string) {
  const [row] = await t.db.select().from(subscribers).where(eq(subscribers.email, email));
  return row!;
}

describe('GET /api/v2/lists/{listId}/subscribers', () => {
  test('full subscribers with their lists, cursor pages by subscriber id', async () => {
    const { headers } = await t.adminWithSession();
    const other = await createAdmin(t.db);
    // Member reads have no ownership check (reference §2.4).
    const list1 = await createList(t.db, { ownerId: other.id });
    const list2 = await createList(t.db);
    const s1 = await createSubscriber(t.db, { confirmed: true, bounceCount: 17, createdAt: new Date('2016-07-22T15:01:17Z') });
    const s2 = await createSubscriber(t.db, { blacklisted: true });
    const s3 = await createSubscriber(t.db);
    await subscribe(t.db, list2.id, s1.id);
    await subscribe(t.db, list2.id, s2.id);
    await subscribe(t.db, list1.id, s2.id);
    await subscribe(t.db, list1.id, s3.id);
    const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${list2.id}/subscribers`, headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      items: [fullSubscriber(s1, [list2]), fullSubscriber(s2, [list2, list1])],
      pagination: { total: 2, limit: 25, has_more: false, next_cursor: s2.id },
    });
    const page1 = await t.inject({ method: 'GET', url: `/api/v2/lists/${list2.id}/subscribers?limit=1`, headers });
    assert.deepEqual(page1.json(), {
      items: [fullSubscriber(s1, [list2])],
      pagination: { total: 2, limit: 1, has_more: true, next_cursor: s1.id },
    });
    const page2 = await t.inject({
      method: 'GET',
      url: `/api/v2/lists/${list2.id}/subscribers?limit=1&after_id=${s1.id}`,
      headers,
    });
    assert.deepEqual(page2.json().items, [fullSubscriber(s2, [list2, list1])]);
    const page3 = await t.inject({
      method: 'GET',
      url: `/api/v2/lists/${list2.id}/subscribers?limit=1&after_id=${s2.id}`,
      headers,
    });
    assert.deepEqual(page3.json(), { items: [], pagination: { total: 2, limit: 1, has_more: false, next_cursor: null } });
  });

  test('an empty list, unknown list 404, non-digit 404, no key 403', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers`, headers });
    assert.deepEqual(res.json(), { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
    const missing = await t.inject({ method: 'GET', url: '/api/v2/lists/999999/subscribers', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/lists/1a/subscribers', headers })).statusCode, 404);
    const anon = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers` });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
  });
  test('walking every page with the cursor yields each member once, in id order, and total matches', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const rows = await t.db
      .insert(subscribers)
      .values(Array.from({ length: 250 }, (_, i) => ({ email: `walk-${i}@example.com`, uniqueId: `walk${String(i).padStart(28, '0')}` })))
      .returning({ id: subscribers.id });
    // Every other one, so subscriber ids and member positions differ.
    const members = rows.filter((_, i) => i % 2 === 0).map((r) => r.id);
    await t.db.insert(subscriptions).values(members.map((subscriberId) => ({ listId: list.id, subscriberId })));
    const seen: number[] = [];
    let cursor = 0;
    for (let guard = 0; guard < 10; guard++) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers?limit=50&after_id=${cursor}`, headers });
      const body = res.json();
      assert.equal(body.pagination.total, 125);
      seen.push(...body.items.map((s: { id: number }) => s.id));
      if (!body.pagination.has_more) break;
      cursor = body.pagination.next_cursor;
    }
    assert.deepEqual(seen, members);
    const count = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers/count`, headers });
    assert.deepEqual(count.json(), { subscribers_count: 125 });
  });
});

describe('GET /api/v2/lists/{listId}/subscribers/count and /count', () => {
  test('counts the members, on both paths', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const empty = await createList(t.db);
    for (let i = 0; i < 3; i++) await subscribe(t.db, list.id, (await createSubscriber(t.db)).id);
    // A member of another list does not count.
    await subscribe(t.db, (await createList(t.db)).id, (await createSubscriber(t.db)).id);
    for (const suffix of ['subscribers/count', 'count']) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/${suffix}`, headers });
      assert.deepEqual([res.statusCode, res.json()], [200, { subscribers_count: 3 }]);
      const none = await t.inject({ method: 'GET', url: `/api/v2/lists/${empty.id}/${suffix}`, headers });
      assert.deepEqual(none.json(), { subscribers_count: 0 });
      const missing = await t.inject({ method: 'GET', url: `/api/v2/lists/999999/${suffix}`, headers });
      assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
      assert.equal((await t.inject({ method: 'GET', url: `/api/v2/lists/abc/${suffix}`, headers })).statusCode, 404);
      const anon = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/${suffix}` });
      assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
    }
  });
});

describe('POST /api/v2/lists/{listId}/subscribers', () => {
  test('auto_confirm: subscribes the given subscribers, confirmed, no mail; idempotent', async () => {
    const { admin, headers } = await t.adminWithSession();
    const list = await createList(t.db, { ownerId: admin.id });
    const known = await createSubscriber(t.db, { email: 'oliver@example.com', confirmed: false });
    const second = await createSubscriber(t.db, { email: 'new.one@example.com', confirmed: false });
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/lists/${list.id}/subscribers`,
      headers,
      payload: { emails: ['OLIVER@example.com', 'new.one@example.com', 'oliver@example.com'], autoConfirm: true },
    });
    assert.equal(res.statusCode, 201);
    const created = await subscriberByEmail(second.email);
    const body = res.json();
    const only = (s: SubscriberRow) => ({
      id: s.id,
      email: s.email,
      created_at: atom(s.createdAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')),
      confirmed: true,
      blacklisted: false,
      bounce_count: 0,
      unique_id: s.uniqueId,
      html_email: s.htmlEmail,
      disabled: false,
    });
    assert.deepEqual(body, [
      { subscriber: only(known), subscriber_list: toSubscriberList(list), subscription_date: atom(body[0].subscription_date) },
      { subscriber: only(created), subscriber_list: toSubscriberList(list), subscription_date: atom(body[1].subscription_date) },
    ]);
    assert.match(created.uniqueId, /^[0-9a-f]{32}$/);
    assert.equal((await subscriberByEmail('oliver@example.com')).confirmed, true);
    const again = await t.inject({
      method: 'POST',
      url: `/api/v2/lists/${list.id}/subscribers`,
      headers,
      payload: { emails: ['oliver@example.com'], auto_confirm: true },
    });
    assert.equal(again.statusCode, 201);
    assert.deepEqual(again.json(), [body[0]]);
    const count = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers/count`, headers });
    assert.deepEqual(count.json(), { subscribers_count: 2 });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(t.smtp.messages.length, before, 'no mail with auto_confirm');
  });

  test('without auto_confirm, unconfirmed subscribers newly added get the confirmation link by mail', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db, { ownerId: null, name: 'Weekly' });
    await createSubscriber(t.db, { email: 'confirmed@example.com', confirmed: true });
    await createSubscriber(t.db, { email: 'fresh@example.com', confirmed: false });
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/lists/${list.id}/subscribers`,
      headers,
      payload: { emails: ['fresh@example.com', 'confirmed@example.com'] },
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(
      res.json().map((s: { subscriber: { email: string; confirmed: boolean } }) => [s.subscriber.email, s.subscriber.confirmed]),
      [
        ['fresh@example.com', false],
        ['confirmed@example.com', true],
      ],
    );
    const fresh = await subscriberByEmail('fresh@example.com');
    const mails = await t.smtp.waitFor(before + 1);
    const mail = mails[before]!;
    assert.deepEqual(mail.envelope.to, ['fresh@example.com']);
    assert.equal(mail.parsed.subject, 'Please confirm your subscription');
    assert.ok(mail.parsed.text?.includes(`${t.config.publicUrl}/api/v2/subscribers/confirm?uniqueId=${fresh.uniqueId}`), mail.parsed.text);
    assert.ok(mail.parsed.text?.includes('"Weekly"'));
    // Adding again sends nothing more: the subscription exists.
    await t.inject({ method: 'POST', url: `/api/v2/lists/${list.id}/subscribers`, headers, payload: { emails: ['fresh@example.com'] } });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(t.smtp.messages.length, before + 1);
  });

  test('blacklisted subscribers are skipped: not subscribed, not answered', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    // On the blacklist though not flagged (the entry alone counts), and flagged without an entry.
    const banned = await createSubscriber(t.db, { email: 'banned@example.com' });
    await t.db.insert(blacklist).values({ email: 'Banned@example.com' });
    const flagged = await createSubscriber(t.db, { email: 'flagged@example.com', blacklisted: true });
    await createSubscriber(t.db, { email: 'fine@example.com' });
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/lists/${list.id}/subscribers`,
      headers,
      payload: { emails: ['banned@example.com', 'flagged@example.com', 'fine@example.com'], auto_confirm: true },
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(
      res.json().map((s: { subscriber: { email: string } }) => s.subscriber.email),
      ['fine@example.com'],
    );
    const barredSubs = await t.db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.listId, list.id), inArray(subscriptions.subscriberId, [banned.id, flagged.id])));
    assert.deepEqual(barredSubs, []);
  });

  test('invalid e-mails are 422 keyed emails[n]; missing, empty and wrong types are 422; malformed JSON 400', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const url = `/api/v2/lists/${list.id}/subscribers`;
    const invalid = await t.inject({ method: 'POST', url, headers, payload: { emails: ['ok@example.com', 'not-an-email', 7] } });
    assert.equal(invalid.statusCode, 422);
    assert.deepEqual(invalid.json(), {
      message: 'Validation failed',
      errors: {
        'emails[1]': ['This value is not a valid email address.'],
        'emails[2]': ['This value should be of type string.'],
      },
    });
    const missing = await t.inject({ method: 'POST', url, headers, payload: {} });
    assert.deepEqual(missing.json(), { message: 'Validation failed', errors: { emails: ['This value should not be blank.'] } });
    const empty = await t.inject({ method: 'POST', url, headers, payload: { emails: [] } });
    assert.equal(empty.statusCode, 422);
    const types = await t.inject({ method: 'POST', url, headers, payload: { emails: 'a@example.com', auto_confirm: 'yes' } });
    assert.deepEqual(types.json(), {
      message: 'Validation failed',
      errors: { emails: ['This value should be of type array.'], auto_confirm: ['This value should be of type boolean.'] },
    });
    const bad = await t.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: '{' });
    assert.equal(bad.statusCode, 400);
  });

  test('order of checks: no key 403, unknown list 404, ownership 403, all before the body; non-digit 404', async () => {
    const { headers } = await t.adminWithSession();
    const other = await createAdmin(t.db);
    const theirs = await createList(t.db, { ownerId: other.id });
    const anon = await t.inject({ method: 'POST', url: '/api/v2/lists/999999/subscribers', payload: { emails: [] } });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
    const missing = await t.inject({ method: 'POST', url: '/api/v2/lists/999999/subscribers', headers, payload: { emails: 1 } });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    const denied = await t.inject({ method: 'POST', url: `/api/v2/lists/${theirs.id}/subscribers`, headers, payload: { emails: 1 } });
    assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED]);
    const nonDigit = await t.inject({ method: 'POST', url: '/api/v2/lists/x/subscribers', headers, payload: { emails: ['a@b.co'] } });
    assert.equal(nonDigit.statusCode, 404);
  });
});

describe('DELETE /api/v2/lists/{listId}/subscribers', () => {
  test('unsubscribes the given addresses (emails[] form, any case); unknown addresses are ignored', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const a = await createSubscriber(t.db, { email: 'del-a@example.com' });
    const b = await createSubscriber(t.db, { email: 'del-b@example.com' });
    const c = await createSubscriber(t.db, { email: 'del-c@example.com' });
    for (const s of [a, b, c]) await subscribe(t.db, list.id, s.id);
    const res = await t.inject({
      method: 'DELETE',
      url: `/api/v2/lists/${list.id}/subscribers?emails[]=DEL-A@example.com&emails[]=del-b@example.com&emails[]=nobody@example.com`,
      headers,
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const left = await t.db.select().from(subscriptions).where(eq(subscriptions.listId, list.id));
    assert.deepEqual(
      left.map((r) => r.subscriberId),
      [c.id],
    );
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, a.id))).length, 1, 'subscriber kept');
    const plain = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${list.id}/subscribers?emails=del-c@example.com`, headers });
    assert.equal(plain.statusCode, 204);
    const count = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/count`, headers });
    assert.deepEqual(count.json(), { subscribers_count: 0 });
  });

  test('missing or invalid e-mails are 422; 403 no key; 404 unknown list; 403 ownership; non-digit 404', async () => {
    const { headers } = await t.adminWithSession();
    const other = await createAdmin(t.db);
    const list = await createList(t.db);
    const theirs = await createList(t.db, { ownerId: other.id });
    const none = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${list.id}/subscribers`, headers });
    assert.deepEqual(
      [none.statusCode, none.json()],
      [422, { message: 'Validation failed', errors: { emails: ['This value should not be blank.'] } }],
    );
    const invalid = await t.inject({
      method: 'DELETE',
      url: `/api/v2/lists/${list.id}/subscribers?emails[]=ok@example.com&emails[]=nope`,
      headers,
    });
    assert.deepEqual(invalid.json(), {
      message: 'Validation failed',
      errors: { 'emails[1]': ['This value is not a valid email address.'] },
    });
    const anon = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${list.id}/subscribers?emails[]=a@example.com` });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
    const missing = await t.inject({ method: 'DELETE', url: '/api/v2/lists/999999/subscribers?emails[]=a@example.com', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    const denied = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${theirs.id}/subscribers?emails[]=x`, headers });
    assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED]);
    assert.equal((await t.inject({ method: 'DELETE', url: '/api/v2/lists/z/subscribers?emails[]=a@example.com', headers })).statusCode, 404);
  });
});

describe('POST /api/v2/lists/{listId}/subscribers: unknown addresses (phpList)', () => {
  test('an address without a subscriber is 404 naming it: nothing created, nothing subscribed, nothing sent', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const known = await createSubscriber(t.db, { email: 'known-member@example.com', confirmed: false });
    await t.db.insert(blacklist).values({ email: 'listed-only@example.com' });
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/lists/${list.id}/subscribers`,
      headers,
      payload: { emails: ['known-member@example.com', 'typo@exmaple.com', 'Stranger@example.com', 'listed-only@example.com'] },
    });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      message: 'Subscriber does not exists: typo@exmaple.com, Stranger@example.com, listed-only@example.com.',
    });
    const created = await t.db
      .select()
      .from(subscribers)
      .where(inArray(subscribers.email, ['typo@exmaple.com', 'stranger@example.com', 'Stranger@example.com', 'listed-only@example.com']));
    assert.deepEqual(created, []);
    assert.deepEqual(await t.db.select().from(subscriptions).where(eq(subscriptions.listId, list.id)), []);
    assert.equal((await subscriberByEmail(known.email)).confirmed, false);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(t.smtp.messages.length, before, 'nobody is mailed');
  });

  test('create_unknown (ours, the console): unknown addresses become subscribers, blacklisted ones are left out', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    await createSubscriber(t.db, { email: 'already-here@example.com', confirmed: true });
    await t.db.insert(blacklist).values({ email: 'barred-new@example.com' });
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/lists/${list.id}/subscribers`,
      headers,
      payload: { emails: ['already-here@example.com', 'Brand-New@example.com', 'barred-new@example.com'], auto_confirm: false, create_unknown: true },
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(
      res.json().map((s: { subscriber: { email: string } }) => s.subscriber.email),
      ['already-here@example.com', 'Brand-New@example.com'],
    );
    const created = await subscriberByEmail('Brand-New@example.com');
    assert.equal(created.confirmed, false);
    assert.equal(created.htmlEmail, true, 'SUBSCRIBER_HTML_DEFAULT (on): test/subscription/subscriber-defaults.test.ts');
    assert.deepEqual(await t.db.select().from(subscribers).where(eq(subscribers.email, 'barred-new@example.com')), []);
    // The new, unconfirmed member is asked to confirm; the confirmed one is not mailed.
    const mails = await t.smtp.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(t.smtp.messages.length, before + 1);
    assert.deepEqual(
      mails[before]!.envelope.to.map((a) => a.toLowerCase()),
      ['brand-new@example.com'],
    );
  });

  test('many unknown addresses: the first ten are named, the rest counted', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const emails = Array.from({ length: 13 }, (_, i) => `nobody-${i}@example.com`);
    const res = await t.inject({ method: 'POST', url: `/api/v2/lists/${list.id}/subscribers`, headers, payload: { emails } });
    assert.deepEqual([res.statusCode, res.json()], [404, { message: `Subscriber does not exists: ${emails.slice(0, 10).join(', ')} and 3 more.` }]);
  });
});
