import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { subscriberAttributeValues, subscribers } from '../../src/db/schema/index.js';
import { EMBEDDED_SEGMENT_BUDGET } from '../../src/segments/segment.service.js';
import { startTestApp, type TestApp } from '../helper.js';
import { defineAttribute } from './attributes.js';

/*
 * Issue 23: a segment's count or page had no bound (99 `not_contains` conditions took 0.68 s on 10,000 subscribers,
 * about a minute at a million; on the embedded database such a statement holds its one connection). PostgreSQL stops
 * it after SEGMENT_TIMEOUT_MS (1 ms here); the embedded database, which cannot interrupt a statement, refuses before
 * it starts when conditions × subscribers passes EMBEDDED_SEGMENT_BUDGET. Either way a 422 that says what to do.
 */

const pglite = !process.env.DATABASE_URL;
let t: TestApp;
let headers: Record<string, string>;
let city: number;

before(async () => {
  t = await startTestApp({ segmentTimeoutMs: 1 });
  headers = (await t.adminWithSession()).headers;
  city = (await defineAttribute(t, headers, 'City', 'textline')).id;
  const rows = await t.db
    .insert(subscribers)
    .values(Array.from({ length: 3000 }, (_, i) => ({ email: `bound-${i}@example.com`, uniqueId: `bound${String(i).padStart(27, '0')}` })))
    .returning({ id: subscribers.id });
  await t.db.insert(subscriberAttributeValues).values(rows.map((r, i) => ({ subscriberId: r.id, definitionId: city, value: `City number ${i}` })));
});
after(() => t.close());

const definition = (conditions: number) => ({
  match: 'all',
  conditions: Array.from({ length: conditions }, (_, i) => ({ type: 'attribute', attribute_id: city, op: 'not_contains', value: `nowhere ${i}` })),
});

describe('segment counts and pages are bounded', () => {
  test(
    'PostgreSQL: past SEGMENT_TIMEOUT_MS the count and the page are stopped with a 422 that says so',
    { skip: pglite && 'PostgreSQL only' },
    async () => {
      const message = 'This segment took longer than 0.001 s to evaluate and was stopped: use fewer or more selective conditions.';
      const count = await t.inject({ method: 'POST', url: '/api/v2/segments/count', headers, payload: { definition: definition(99) } });
      assert.equal(count.statusCode, 422, count.body);
      assert.deepEqual(count.json(), { message: 'Validation failed', errors: { definition: [message] } });
      // A page that has to walk far to fill itself (nothing matches) is stopped the same way.
      const page = await t.inject({
        method: 'POST',
        url: '/api/v2/segments/subscribers',
        headers,
        payload: { definition: definition(99), limit: 100 },
      });
      assert.equal(page.statusCode, 422, page.body);
      assert.deepEqual(page.json(), { message: 'Validation failed', errors: { definition: [message] } });
    },
  );

  test(
    'embedded: past the budget of condition checks, a 422 naming how many conditions fit; within it, the answer',
    { skip: !pglite && 'the embedded database only' },
    async () => {
      // The bound reads the highest subscriber id (an index's end, no count): one far up stands for many.
      const far = EMBEDDED_SEGMENT_BUDGET / 50;
      await t.db.insert(subscribers).values({ id: far, email: 'far@example.com', uniqueId: 'far'.padEnd(32, '0') });
      const message =
        `This segment is too costly for the embedded database: 99 conditions over up to ${far} subscribers ` +
        `(at most ${EMBEDDED_SEGMENT_BUDGET.toLocaleString('en')} condition checks). Use at most 50 conditions, ` +
        'or move to PostgreSQL (README: When to move to PostgreSQL).';
      const count = await t.inject({ method: 'POST', url: '/api/v2/segments/count', headers, payload: { definition: definition(99) } });
      assert.equal(count.statusCode, 422, count.body);
      assert.deepEqual(count.json(), { message: 'Validation failed', errors: { definition: [message] } });
      const page = await t.inject({
        method: 'POST',
        url: '/api/v2/segments/subscribers',
        headers,
        payload: { definition: definition(99), limit: 100 },
      });
      assert.equal(page.statusCode, 422, page.body);
      assert.deepEqual(page.json(), { message: 'Validation failed', errors: { definition: [message] } });

      const fits = await t.inject({ method: 'POST', url: '/api/v2/segments/count', headers, payload: { definition: definition(50) } });
      assert.equal(fits.statusCode, 200, fits.body);
      // None is confirmed or on a list, so none can be mailed (docs/api.md "Consent"; issue 25's "N of M can be mailed").
      assert.deepEqual(fits.json(), { count: 3001, sendable: 0 }, 'every subscriber, the far one too');
      // A page further on visits fewer subscribers, so more conditions fit.
      const later = await t.inject({
        method: 'POST',
        url: '/api/v2/segments/subscribers',
        headers,
        payload: { definition: definition(99), after_id: far - 1000, limit: 10 },
      });
      assert.equal(later.statusCode, 200, later.body);
    },
  );
});
