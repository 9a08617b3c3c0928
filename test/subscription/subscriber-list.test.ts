import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { subscriptions } from '../../src/db/schema/index.js';
import { createList, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
/** Subscriber ids by name, created in this order. */
const ids: Record<string, number> = {};
let listId = 0;
before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession({ privileges: { subscribers: true } })).headers;
  const rows: [string, Parameters<typeof createSubscriber>[1]][] = [
    ['ann', { email: 'ann@example.com', confirmed: true, foreignKey: 'crm-001' }],
    ['bob', { email: 'bob@shop.example', confirmed: false, uniqueId: 'aaaabbbbccccdddd0000111122223333' }],
    ['cid', { email: 'cid_100%@example.com', confirmed: true, blacklisted: true }],
    ['dee', { email: 'dee@EXAMPLE.com', confirmed: false, blacklisted: true, foreignKey: 'crm-002' }],
  ];
  for (const [name, values] of rows) ids[name] = (await createSubscriber(t.db, values)).id;
  const list = await createList(t.db, { name: 'Weekly' });
  listId = list.id;
  await t.db.insert(subscriptions).values({ listId, subscriberId: ids.bob! });
});
after(() => t.close());

async function page(query: string) {
  const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers${query}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  return { ids: body.items.map((s: { id: number }) => s.id) as number[], pagination: body.pagination, items: body.items };
}

describe('GET /api/v2/subscribers', () => {
  test('cursor pages in id order with the total, lists embedded, history empty', async () => {
    const first = await page('?limit=2');
    assert.deepEqual(first.ids, [ids.ann, ids.bob]);
    assert.deepEqual(first.pagination, { total: 4, limit: 2, has_more: true, next_cursor: ids.bob });
    const bob = first.items[1];
    assert.deepEqual(
      bob.subscribed_lists.map((l: { id: number; name: string }) => [l.id, l.name]),
      [[listId, 'Weekly']],
    );
    assert.deepEqual(bob.history, []);
    assert.deepEqual(first.items[0].subscribed_lists, []);
    assert.deepEqual(Object.keys(bob), [
      'id',
      'email',
      'created_at',
      'updated_at',
      'confirmed',
      'blacklisted',
      'bounce_count',
      'unique_id',
      'uuid',
      'html_email',
      'disabled',
      'subscribed_lists',
      'history',
    ]);
    const second = await page(`?limit=2&after_id=${ids.bob}`);
    assert.deepEqual(second.ids, [ids.cid, ids.dee]);
    assert.deepEqual(second.pagination, { total: 4, limit: 2, has_more: true, next_cursor: ids.dee });
    const third = await page(`?limit=2&after_id=${ids.dee}`);
    assert.deepEqual(third.ids, []);
    assert.deepEqual(third.pagination, { total: 4, limit: 2, has_more: false, next_cursor: null });
  });

  test('lenient cursor parameters: bad after_id is 0, limit is clamped', async () => {
    const res = await page('?after_id=abc&limit=0');
    assert.deepEqual(res.ids, [ids.ann]);
    assert.equal(res.pagination.limit, 1);
    assert.equal((await page('?limit=1000')).pagination.limit, 100);
  });

  test('is_confirmed and is_blacklisted accept true, false, 1, 0 and combine; the total follows', async () => {
    assert.deepEqual((await page('?is_confirmed=true')).ids, [ids.ann, ids.cid]);
    assert.deepEqual((await page('?is_confirmed=0')).ids, [ids.bob, ids.dee]);
    assert.deepEqual((await page('?is_blacklisted=1')).ids, [ids.cid, ids.dee]);
    const both = await page('?is_confirmed=false&is_blacklisted=true');
    assert.deepEqual(both.ids, [ids.dee]);
    assert.equal(both.pagination.total, 1);
    const paged = await page('?is_blacklisted=false&limit=1');
    assert.deepEqual(paged.pagination, { total: 2, limit: 1, has_more: true, next_cursor: ids.ann });
  });

  test('find_column/find_value: case-insensitive substring; wildcards are literal; ignored without a column', async () => {
    assert.deepEqual((await page('?find_column=email&find_value=EXAMPLE.COM')).ids, [ids.ann, ids.cid, ids.dee]);
    assert.deepEqual((await page('?find_column=email&find_value=_100%25')).ids, [ids.cid]);
    assert.deepEqual((await page('?find_column=email&find_value=%25')).ids, [ids.cid]);
    assert.deepEqual((await page('?find_column=foreignKey&find_value=crm')).ids, [ids.ann, ids.dee]);
    assert.deepEqual((await page('?find_column=foreign_key&find_value=002')).ids, [ids.dee]);
    assert.deepEqual((await page('?find_column=uniqueId&find_value=bbbbcccc')).ids, [ids.bob]);
    assert.deepEqual((await page('?find_value=shop')).ids, [ids.ann, ids.bob, ids.cid, ids.dee]);
    const combined = await page('?find_column=email&find_value=example.com&is_blacklisted=1&is_confirmed=1');
    assert.deepEqual(combined.ids, [ids.cid]);
    assert.equal(combined.pagination.total, 1);
  });

  test('list_id: only the members of that list, cursor pages by id, combined with the other filters', async () => {
    const other = await createList(t.db, { name: 'Other' });
    for (const name of ['ann', 'cid', 'dee']) await t.db.insert(subscriptions).values({ listId: other.id, subscriberId: ids[name]! });
    const first = await page(`?list_id=${other.id}&limit=2`);
    assert.deepEqual(first.ids, [ids.ann, ids.cid]);
    assert.deepEqual(first.pagination, { total: 3, limit: 2, has_more: true, next_cursor: ids.cid });
    assert.deepEqual(
      first.items[0].subscribed_lists.map((l: { id: number }) => l.id),
      [other.id],
    );
    const second = await page(`?list_id=${other.id}&limit=2&after_id=${ids.cid}`);
    assert.deepEqual(second.ids, [ids.dee]);
    assert.deepEqual(second.pagination, { total: 3, limit: 2, has_more: false, next_cursor: ids.dee });
    const blacklisted = await page(`?list_id=${other.id}&is_blacklisted=true&find_column=email&find_value=EXAMPLE.COM`);
    assert.deepEqual(blacklisted.ids, [ids.cid, ids.dee]);
    assert.equal(blacklisted.pagination.total, 2);
    const weekly = await page(`?list_id=${listId}&is_confirmed=true`);
    assert.deepEqual([weekly.ids, weekly.pagination.total], [[], 0]);
    assert.deepEqual((await page(`?list_id=${listId}`)).ids, [ids.bob]);

    const missing = await t.inject({ method: 'GET', url: '/api/v2/subscribers?list_id=999999', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Subscriber list not found.' }]);
  });

  test('bad filter values are 422', async () => {
    const cases: [string, Record<string, string[]>][] = [
      ['?is_confirmed=yes', { is_confirmed: ['is_confirmed must be one of: true, false, 1, 0'] }],
      ['?is_blacklisted=', { is_blacklisted: ['is_blacklisted must be one of: true, false, 1, 0'] }],
      ['?find_column=password&find_value=x', { find_column: ['Invalid find_column value. Allowed values: email, foreignKey, uniqueId.'] }],
      ['?list_id=abc', { list_id: ['This value should be of type integer.'] }],
      ['?list_id=0', { list_id: ['This value should be positive.'] }],
    ];
    for (const [query, errors] of cases) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers${query}`, headers });
      assert.equal(res.statusCode, 422, query);
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, query);
    }
  });

  test('needs a session and the subscribers privilege', async () => {
    const none = await t.inject({ method: 'GET', url: '/api/v2/subscribers' });
    assert.deepEqual([none.statusCode, none.json()], [403, { message: 'No valid session key was provided as basic auth password.' }]);
    const other = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await t.inject({ method: 'GET', url: '/api/v2/subscribers', headers: other.headers });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to view subscribers.' }]);
  });
});
