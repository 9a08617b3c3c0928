import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { pauseTrigger } from '../pause-trigger.js';

/*
 * The top local parts are a snapshot refreshed off the write path (issue 24): writes to subscribers only mark it
 * out of date; the next request refreshes it, waiting up to half a second, and answers the figures of `computed_at`
 * with `stale: true` when the refresh takes longer (a million addresses take seconds to group). Here a trigger makes
 * the refresh last four seconds when asked to.
 */

let t: TestApp;
let headers: Record<string, string>;
let pause: (seconds: number) => Promise<unknown>;
const top = async () => {
  const res = await t.inject({ method: 'GET', url: '/api/v2/analytics/local-parts/top?limit=3', headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
  for (const email of ['info@a.example', 'info@b.example', 'sales@a.example']) await createSubscriber(t.db, { email });
  ({ pause } = await pauseTrigger(t.db, 'refresh_pause', { table: 'subscriber_local_part_counts', event: 'delete' }));
});
after(() => t.close());

describe('top local parts: a snapshot refreshed in the background', () => {
  test('the first request computes it; unchanged subscribers keep it; a write makes the next request refresh it', async () => {
    const first = await top();
    assert.deepEqual(first, {
      local_parts: [
        { local_part: 'info', count: 2, percentage: 66.7 },
        { local_part: 'sales', count: 1, percentage: 33.3 },
      ],
      total: 2,
      computed_at: first.computed_at,
      stale: false,
    });
    assert.notEqual(first.computed_at, null);
    assert.deepEqual(await top(), first, 'nothing changed: the same snapshot');

    // Bulk writes of every kind mark it; only a change of address among updates does.
    await t.db.execute(sql`update subscribers set confirmed = true`);
    assert.deepEqual(await top(), first, 'a change of state is no change of local parts');
    await t.db.execute(sql`update subscribers set email = 'office@a.example' where email = 'sales@a.example'`);
    const renamed = await top();
    assert.deepEqual(renamed.local_parts, [
      { local_part: 'info', count: 2, percentage: 66.7 },
      { local_part: 'office', count: 1, percentage: 33.3 },
    ]);
    assert.equal(renamed.stale, false);
    await t.db.execute(sql`delete from subscribers where email = 'info@b.example'`);
    assert.deepEqual((await top()).local_parts, [
      { local_part: 'info', count: 1, percentage: 50 },
      { local_part: 'office', count: 1, percentage: 50 },
    ]);
  });

  test(
    'a refresh longer than the wait: the old figures at once, marked stale; the new ones when it is done',
    // One embedded database runs one statement at a time: a request cannot read while the refresh runs there.
    { skip: !process.env.DATABASE_URL && 'needs PostgreSQL' },
    async () => {
      const before = await top();
      await createSubscriber(t.db, { email: 'office@b.example' });
      await pause(4);
      // The old figures, marked stale: it answered before the refresh (held for 4 s) committed.
      const during = await top();
      assert.deepEqual(during, { ...before, stale: true });
      // A second request meanwhile answers the same and starts no second refresh (the claim is unchanged).
      const claim = async () =>
        (await queryRows(t.db, sql`select refreshing_since::text as at from analytics_snapshots where name = 'local_parts'`, (row) => row.at))[0];
      const claimed = await claim();
      assert.notEqual(claimed, null);
      assert.deepEqual(await top(), { ...before, stale: true });
      assert.equal(await claim(), claimed);
      let after = during;
      for (let i = 0; i < 100 && after.stale; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = await top();
      }
      assert.equal(after.stale, false);
      assert.deepEqual(after.local_parts, [
        { local_part: 'office', count: 2, percentage: 66.7 },
        { local_part: 'info', count: 1, percentage: 33.3 },
      ]);
      assert.ok(after.computed_at >= before.computed_at);
    },
  );
});
