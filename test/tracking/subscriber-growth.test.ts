import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

const DAY = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('GET /api/v2/analytics/subscribers/growth', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('totals, and new subscribers per UTC day over the window with the running total, oldest first', async () => {
    const now = Date.now();
    await createSubscriber(t.db, { createdAt: new Date(now - 100 * DAY), confirmed: true });
    await createSubscriber(t.db, { createdAt: new Date(now - 2 * DAY), confirmed: true, blacklisted: true });
    await createSubscriber(t.db, { createdAt: new Date(now) });
    await createSubscriber(t.db, { createdAt: new Date(now), confirmed: true });
    const { headers } = await t.adminWithSession();
    const res = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth?days=3', headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      totals: { subscribers: 4, confirmed: 3, blacklisted: 1 },
      days: [
        { date: utcDay(now - 2 * DAY), new: 1, total: 2 },
        { date: utcDay(now - DAY), new: 0, total: 2 },
        { date: utcDay(now), new: 2, total: 4 },
      ],
    });
    const fallback = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth', headers });
    assert.equal((fallback.json() as { days: unknown[] }).days.length, 90);
  });

  test('the per-day rollup follows inserts, deletes, flag changes and a moved creation date, as a count of the subscribers would', async () => {
    const now = Date.now();
    const made = [];
    for (const [daysAgo, confirmed] of [
      [5, true],
      [5, false],
      [4, true],
      [1, false],
      [1, true],
      [0, false],
    ] as const) {
      made.push(await createSubscriber(t.db, { createdAt: new Date(now - daysAgo * DAY), confirmed }));
    }
    const ids = made.map((s) => s.id);
    await t.db.execute(sql`update subscribers set blacklisted = true where id = ${ids[0]}`);
    await t.db.execute(sql`update subscribers set confirmed = true where id = any(${sql.raw(`array[${ids[1]}, ${ids[3]}]`)})`);
    await t.db.execute(sql`update subscribers set created_at = created_at - interval '3 days' where id = ${ids[2]}`);
    await t.db.execute(sql`update subscribers set bounce_count = bounce_count + 1 where id = ${ids[4]}`);
    await t.db.execute(sql`delete from subscribers where id = ${ids[5]}`);

    const { headers } = await t.adminWithSession();
    const res = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth?days=10', headers });
    assert.equal(res.statusCode, 200);
    const truth = await queryRows(
      t.db,
      sql`select count(*)::int as n, count(*) filter (where confirmed)::int as confirmed, count(*) filter (where blacklisted)::int as blacklisted,
                 count(*) filter (where created_at < (now() at time zone 'utc')::date - 9)::int as older
          from subscribers`,
      (row) => row as { n: number; confirmed: number; blacklisted: number; older: number },
    );
    const perDay = await queryRows(
      t.db,
      sql`select to_char((created_at at time zone 'utc')::date, 'YYYY-MM-DD') as day, count(*)::int as n from subscribers group by 1`,
      (row) => [row.day as string, row.n as number] as const,
    );
    const added = new Map(perDay);
    let total = truth[0]!.older;
    const days = Array.from({ length: 10 }, (_, i) => {
      const date = utcDay(now - (9 - i) * DAY);
      total += added.get(date) ?? 0;
      return { date, new: added.get(date) ?? 0, total };
    });
    assert.deepEqual(res.json(), { totals: { subscribers: truth[0]!.n, confirmed: truth[0]!.confirmed, blacklisted: truth[0]!.blacklisted }, days });
    // The moved subscriber is counted on its new day (7 days ago), no longer on its old one.
    const newOn = (daysAgo: number) => days.find((d) => d.date === utcDay(now - daysAgo * DAY))!.new;
    assert.deepEqual([newOn(7), newOn(4)], [1, 0]);
  });

  test('needs the statistics privilege, and days within 1..366', async () => {
    const { headers } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const denied = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth', headers });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to access statistics.' });
    const admin = await t.adminWithSession();
    const bad = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth?days=0', headers: admin.headers });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /days/);
  });
});
