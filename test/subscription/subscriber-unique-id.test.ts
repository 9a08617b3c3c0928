import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inArray } from 'drizzle-orm';
import { subscribers } from '../../src/db/schema/index.js';
import { newSubscriberUniqueId, newSubscriberUniqueIds } from '../../src/subscription/subscriber-unique-id.js';
import { startTestApp, type TestApp } from '../helper.js';
import { multipart } from '../multipart.js';

/*
 * Subscriber unique ids (src/subscription/subscriber-unique-id.ts): 32 lowercase hex, the creation second first and
 * 96 random bits after it, made the same way by every path that creates subscribers.
 */

const HEX32 = /^[0-9a-f]{32}$/;
const secondOf = (uniqueId: string) => parseInt(uniqueId.slice(0, 8), 16);
const nowSecond = () => Math.floor(Date.now() / 1000);

describe('newSubscriberUniqueIds', () => {
  test('32 lowercase hex: the second it was made, then 24 random hex', () => {
    const at = Date.UTC(2026, 11, 7, 1, 2, 3, 999);
    const ids = newSubscriberUniqueIds(3, at);
    for (const id of ids) {
      assert.match(id, HEX32);
      assert.equal(secondOf(id), Math.floor(at / 1000));
      assert.equal(id.slice(0, 8), '6b16058b');
    }
    assert.equal(new Set(ids.map((id) => id.slice(8))).size, 3);
  });

  test('ids of one instant are all different, and their random part is not a pattern', () => {
    const ids = newSubscriberUniqueIds(20_000, 0);
    assert.equal(new Set(ids).size, 20_000);
    assert.ok(ids.every((id) => id.startsWith('00000000')));
    // Every hex digit turns up at every random position (a counter or a constant would not).
    for (let position = 8; position < 32; position++) {
      assert.equal(new Set(ids.map((id) => id[position])).size, 16, `position ${position}`);
    }
  });

  test('an id made in a later second sorts after one made earlier (the index grows at its end)', () => {
    const first = newSubscriberUniqueId(1_700_000_000_000);
    const later = newSubscriberUniqueId(1_700_000_001_000);
    const muchLater = newSubscriberUniqueId(4_000_000_000_000); // 2096: still 8 hex digits
    assert.ok(first < later && later < muchLater, `${first} < ${later} < ${muchLater}`);
    assert.match(muchLater, HEX32);
  });
});

describe('subscribers created through the API', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ headers } = await t.adminWithSession());
  });
  after(() => t.close());

  /** Checks ids made between `from` and `to` (seconds), and that no two are alike. */
  function assertFresh(ids: string[], from: number, to: number) {
    for (const id of ids) {
      assert.match(id, HEX32);
      assert.ok(secondOf(id) >= from && secondOf(id) <= to, `${id} made at ${secondOf(id)}, not in ${from}…${to}`);
    }
    assert.equal(new Set(ids).size, ids.length);
  }

  test('POST /subscribers answers an id made at its creation', async () => {
    const from = nowSecond();
    const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email: 'uid-one@example.com' } });
    assert.equal(res.statusCode, 201);
    const body = res.json<{ unique_id: string; created_at: string }>();
    assertFresh([body.unique_id], from, nowSecond());
    assert.ok(Math.abs(secondOf(body.unique_id) - Date.parse(body.created_at) / 1000) <= 1, `${body.unique_id} vs ${body.created_at}`);
  });

  test('an import gives each new subscriber its own id of that second', async () => {
    const emails = Array.from({ length: 2_500 }, (_, i) => `uid-import-${i}@example.com`);
    const body = multipart([{ name: 'file', filename: 'a.csv', contentType: 'text/csv', content: `email\n${emails.join('\n')}\n` }]);
    const from = nowSecond();
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers/import',
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
    assert.equal(res.statusCode, 200, res.body);
    const rows = await t.db.select({ uniqueId: subscribers.uniqueId }).from(subscribers).where(inArray(subscribers.email, emails));
    assert.equal(rows.length, emails.length);
    assertFresh(
      rows.map((r) => r.uniqueId),
      from,
      nowSecond(),
    );
  });
});
