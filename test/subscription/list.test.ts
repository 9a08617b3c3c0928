import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { lists, subscribers, subscriptions } from '../../src/db/schema/index.js';
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

const news = {
  name: 'News',
  description: 'News (and some fun stuff)',
  listPosition: 12,
  subjectPrefix: 'phpList',
  isPublic: true,
  category: 'news',
  createdAt: new Date('2016-06-22T15:01:17Z'),
};
const newsOut = (id: number) => ({
  id,
  name: 'News',
  created_at: '2016-06-22T15:01:17+00:00',
  description: 'News (and some fun stuff)',
  list_position: 12,
  subject_prefix: 'phpList',
  public: true,
  category: 'news',
  rss_feed: null,
});

describe('GET /api/v2/lists', () => {
  test("answers the caller's lists and owner-less ones, paginated", async () => {
    const { admin, headers } = await t.adminWithSession();
    const other = await createAdmin(t.db);
    const mine = await createList(t.db, { ...news, ownerId: admin.id });
    await createList(t.db, { name: 'Theirs', ownerId: other.id });
    const ownerless = await createList(t.db, { ...news, ownerId: null });
    const res = await t.inject({ method: 'GET', url: '/api/v2/lists', headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      items: [newsOut(mine.id), newsOut(ownerless.id)],
      pagination: { total: 2, limit: 25, has_more: false, next_cursor: ownerless.id },
    });
    const page = await t.inject({ method: 'GET', url: '/api/v2/lists?limit=1', headers });
    assert.deepEqual(page.json(), {
      items: [newsOut(mine.id)],
      pagination: { total: 2, limit: 1, has_more: true, next_cursor: mine.id },
    });
    const next = await t.inject({ method: 'GET', url: `/api/v2/lists?limit=1&after_id=${mine.id}`, headers });
    assert.deepEqual(next.json().items, [newsOut(ownerless.id)]);
  });

  test('no key is 403; an administrator without the subscribers privilege is 403', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/lists' });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), NO_SESSION);
    const { headers } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await t.inject({ method: 'GET', url: '/api/v2/lists', headers });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to manage lists.' });
    const { headers: allowed } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/lists', headers: allowed })).statusCode, 200);
  });
});

describe('POST /api/v2/lists', () => {
  test('creates a list owned by the caller (camelCase accepted), defaults for the rest', async () => {
    const { admin, headers } = await t.adminWithSession();
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/lists',
      headers,
      payload: { name: 'New List', description: 'A new one', listPosition: 3, public: true, owner: 99 },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      name: 'New List',
      created_at: atom(body.created_at),
      description: 'A new one',
      list_position: 3,
      subject_prefix: null,
      public: true,
      category: '',
      rss_feed: null,
    });
    const [row] = await t.db.select().from(lists).where(eq(lists.id, body.id));
    assert.equal(row?.ownerId, admin.id);
    const minimal = await t.inject({ method: 'POST', url: '/api/v2/lists', headers, payload: { name: 'Min' } });
    assert.equal(minimal.json().public, false);
  });

  test('missing or blank name is 422; wrong JSON types are 422 per field; malformed JSON is 400; no key 403', async () => {
    const { headers } = await t.adminWithSession();
    const missing = await t.inject({ method: 'POST', url: '/api/v2/lists', headers, payload: { description: 'x' } });
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(missing.json(), { message: 'Validation failed', errors: { name: ['This value should not be blank.'] } });
    const blank = await t.inject({ method: 'POST', url: '/api/v2/lists', headers, payload: { name: '   ' } });
    assert.deepEqual(blank.json(), { message: 'Validation failed', errors: { name: ['This value should not be blank.'] } });
    const types = await t.inject({
      method: 'POST',
      url: '/api/v2/lists',
      headers,
      payload: { name: 5, public: 'yes', list_position: '3', category: false },
    });
    assert.equal(types.statusCode, 422);
    assert.deepEqual(types.json(), {
      message: 'Validation failed',
      errors: {
        name: ['This value should be of type string.'],
        public: ['This value should be of type boolean.'],
        list_position: ['This value should be of type integer.'],
        category: ['This value should be of type string.'],
      },
    });
    const bad = await t.inject({
      method: 'POST',
      url: '/api/v2/lists',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{nope',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /^Invalid JSON: /);
    const anon = await t.inject({ method: 'POST', url: '/api/v2/lists', payload: { name: 'x' } });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
  });
});

describe('GET /api/v2/lists/{listId}', () => {
  test('answers the list; owner-less lists are open; another owner is 403; unknown 404; non-digits 404', async () => {
    const { admin, headers } = await t.adminWithSession();
    const other = await createAdmin(t.db);
    const mine = await createList(t.db, { ...news, ownerId: admin.id });
    const open = await createList(t.db, { ...news });
    const theirs = await createList(t.db, { ...news, ownerId: other.id });
    const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${mine.id}`, headers });
    assert.deepEqual([res.statusCode, res.json()], [200, newsOut(mine.id)]);
    const ownerless = await t.inject({ method: 'GET', url: `/api/v2/lists/${open.id}`, headers });
    assert.deepEqual(ownerless.json(), newsOut(open.id));
    const denied = await t.inject({ method: 'GET', url: `/api/v2/lists/${theirs.id}`, headers });
    assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED]);
    const missing = await t.inject({ method: 'GET', url: '/api/v2/lists/999999', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    for (const id of ['abc', '1x', '-1', '1.5']) {
      const res2 = await t.inject({ method: 'GET', url: `/api/v2/lists/${id}`, headers });
      assert.equal(res2.statusCode, 404, id);
      assert.match(res2.json().message, /^No route found for "GET /);
    }
    const anon = await t.inject({ method: 'GET', url: '/api/v2/lists/999999' });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
  });
});

describe('PUT /api/v2/lists/{listId}', () => {
  test('replaces every field', async () => {
    const { admin, headers } = await t.adminWithSession();
    const list = await createList(t.db, { ...news, ownerId: admin.id, rssFeed: 'x' });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/lists/${list.id}`,
      headers,
      payload: {
        name: 'Updated News',
        description: 'Updated description',
        listPosition: 7,
        public: false,
        category: 'announcements',
        subjectPrefix: '[Upd]',
        rssFeed: 'https://example.com/rss.xml',
      },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: list.id,
      name: 'Updated News',
      created_at: '2016-06-22T15:01:17+00:00',
      description: 'Updated description',
      list_position: 7,
      subject_prefix: '[Upd]',
      public: false,
      category: 'announcements',
      rss_feed: 'https://example.com/rss.xml',
    });
    const replaced = await t.inject({ method: 'PUT', url: `/api/v2/lists/${list.id}`, headers, payload: { name: 'Bare' } });
    assert.deepEqual(replaced.json(), {
      id: list.id,
      name: 'Bare',
      created_at: '2016-06-22T15:01:17+00:00',
      description: null,
      list_position: null,
      subject_prefix: null,
      public: false,
      category: '',
      rss_feed: null,
    });
  });

  test('order of checks: 403 no key, 404 before body validation, 403 ownership before body validation, then 422', async () => {
    const { admin, headers } = await t.adminWithSession();
    const other = await createAdmin(t.db);
    const theirs = await createList(t.db, { ownerId: other.id });
    const mine = await createList(t.db, { ownerId: admin.id });
    const anon = await t.inject({ method: 'PUT', url: '/api/v2/lists/999999', payload: {} });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
    const missing = await t.inject({ method: 'PUT', url: '/api/v2/lists/999999', headers, payload: { name: 1 } });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    const denied = await t.inject({ method: 'PUT', url: `/api/v2/lists/${theirs.id}`, headers, payload: { name: 1 } });
    assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED]);
    const invalid = await t.inject({ method: 'PUT', url: `/api/v2/lists/${mine.id}`, headers, payload: { name: '' } });
    assert.deepEqual(
      [invalid.statusCode, invalid.json()],
      [422, { message: 'Validation failed', errors: { name: ['This value should not be blank.'] } }],
    );
    const nonDigit = await t.inject({ method: 'PUT', url: '/api/v2/lists/abc', headers, payload: { name: 'x' } });
    assert.equal(nonDigit.statusCode, 404);
  });
});

describe('DELETE /api/v2/lists/{listId}', () => {
  test('deletes the list and its subscriptions, keeps the subscribers', async () => {
    const { admin, headers } = await t.adminWithSession();
    const list = await createList(t.db, { ownerId: admin.id });
    const sub = await createSubscriber(t.db);
    await subscribe(t.db, list.id, sub.id);
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${list.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const gone = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}`, headers });
    assert.deepEqual([gone.statusCode, gone.json()], [404, NOT_FOUND]);
    assert.equal((await t.db.select().from(subscriptions).where(eq(subscriptions.listId, list.id))).length, 0);
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, sub.id))).length, 1);
  });

  test('another owner is 403, unknown 404, non-digits 404, no key 403', async () => {
    const { headers } = await t.adminWithSession();
    const other = await createAdmin(t.db);
    const theirs = await createList(t.db, { ownerId: other.id });
    const denied = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${theirs.id}`, headers });
    assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED]);
    const missing = await t.inject({ method: 'DELETE', url: '/api/v2/lists/999999', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    assert.equal((await t.inject({ method: 'DELETE', url: '/api/v2/lists/x1', headers })).statusCode, 404);
    const anon = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${theirs.id}` });
    assert.deepEqual([anon.statusCode, anon.json()], [403, NO_SESSION]);
  });
});
