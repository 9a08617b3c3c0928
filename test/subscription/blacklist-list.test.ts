import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { blacklist } from '../../src/db/schema/index.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession({ privileges: { subscribers: true } })).headers;
});
after(() => t.close());

async function list(query: string) {
  const res = await t.inject({ method: 'GET', url: `/api/v2/blacklist${query}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { items: { id: number; email: string; added: string; reason: string | null }[]; pagination: unknown };
}

describe('GET /api/v2/blacklist', () => {
  test('entries with date and reason, keyset pages in id order, substring filter with literal wildcards', async () => {
    for (const [email, reason] of [
      ['Spam.King@example.com', 'Complained'],
      ['quiet@example.org', null],
      ['100%_real@example.com', 'Bounced'],
    ] as const) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers, payload: { email, reason } });
      assert.equal(res.statusCode, 201, res.body);
    }
    await t.db
      .update(blacklist)
      .set({ createdAt: new Date('2026-01-02T03:04:05Z') })
      .where(sql`true`);
    const ids = (await t.db.select({ id: blacklist.id }).from(blacklist).orderBy(blacklist.id)).map((r) => r.id);

    const first = await list('?limit=2');
    assert.deepEqual(first, {
      items: [
        { id: ids[0], email: 'Spam.King@example.com', added: '2026-01-02T03:04:05+00:00', reason: 'Complained' },
        { id: ids[1], email: 'quiet@example.org', added: '2026-01-02T03:04:05+00:00', reason: null },
      ],
      pagination: { total: 3, limit: 2, has_more: true, next_cursor: ids[1] },
    });
    const second = await list(`?limit=2&after_id=${ids[1]}`);
    assert.deepEqual(
      second.items.map((e) => e.email),
      ['100%_real@example.com'],
    );
    assert.deepEqual(second.pagination, { total: 3, limit: 2, has_more: false, next_cursor: ids[2] });

    const found = await list('?email=%20KING@');
    assert.deepEqual(
      [found.items.map((e) => e.email), found.pagination],
      [['Spam.King@example.com'], { total: 1, limit: 25, has_more: false, next_cursor: ids[0] }],
    );
    assert.deepEqual(
      (await list('?email=%25_')).items.map((e) => e.email),
      ['100%_real@example.com'],
    );
    assert.deepEqual(
      (await list('?email=example.com')).items.map((e) => e.email),
      ['Spam.King@example.com', '100%_real@example.com'],
    );
    const none = await list('?email=nobody');
    assert.deepEqual(none, { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
  });

  test('an over-long filter is 422; no session or privilege is 403', async () => {
    const long = await t.inject({ method: 'GET', url: `/api/v2/blacklist?email=${'a'.repeat(256)}`, headers });
    assert.equal(long.statusCode, 422);
    assert.deepEqual(Object.keys((long.json() as { errors: object }).errors), ['email']);
    const none = await t.inject({ method: 'GET', url: '/api/v2/blacklist' });
    assert.deepEqual([none.statusCode, none.json()], [403, { message: 'No valid session key was provided as basic auth password.' }]);
    const other = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await t.inject({ method: 'GET', url: '/api/v2/blacklist', headers: other.headers });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to view blacklist information.' }]);
  });
});
