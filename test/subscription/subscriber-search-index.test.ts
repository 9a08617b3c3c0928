import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { foldAll, foldOnce } from '../../src/subscription/email-search.fold.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * The e-mail search's trigram index lives on a copy of the addresses that a background fold brings up to date
 * (issue 24). Whatever the fold has reached, a search answers exactly what `email ILIKE '%…%'` on subscribers would.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());
beforeEach(async () => {
  await t.db.execute(sql`delete from subscribers`);
  await foldAll(t.database.db);
});

async function found(text: string): Promise<{ emails: string[]; total: number }> {
  const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers?find_column=email&find_value=${encodeURIComponent(text)}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { items: { email: string }[]; pagination: { total: number } };
  return { emails: body.items.map((s) => s.email).sort(), total: body.pagination.total };
}

async function segmentMatches(op: 'contains' | 'domain_is', value: string): Promise<string[]> {
  const definition = { match: 'all', conditions: [{ type: 'email', op, value }] };
  const res = await t.inject({ method: 'POST', url: '/api/v2/segments/subscribers', headers, payload: { definition, limit: 100 } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { items: { email: string }[] }).items.map((s) => s.email).sort();
}

const pending = async () => (await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from subscriber_email_search_pending`))[0]!.n;
const copied = async () =>
  (await queryRows<{ subscriber_id: number; email: string }>(t.db, sql`select subscriber_id, email from subscriber_email_search order by 1`)).map(
    (r) => `${r.subscriber_id}:${r.email}`,
  );

describe('the e-mail search', () => {
  test('finds new addresses before the fold (the pending ids) and after it (the index)', async () => {
    const needle = await createSubscriber(t.db, { email: 'needle.person@example.com' });
    await createSubscriber(t.db, { email: 'hay@example.org' });
    assert.equal(await pending(), 2, 'one range per insert statement');
    assert.deepEqual(await copied(), []);
    assert.deepEqual(await found('EDLE.PERS'), { emails: ['needle.person@example.com'], total: 1 });
    assert.deepEqual(await segmentMatches('domain_is', 'EXAMPLE.org'), ['hay@example.org']);

    assert.equal(await foldAll(t.database.db), 2);
    assert.equal(await pending(), 0);
    assert.deepEqual(await copied(), [`${needle.id}:needle.person@example.com`, `${needle.id + 1}:hay@example.org`]);
    assert.deepEqual(await found('EDLE.PERS'), { emails: ['needle.person@example.com'], total: 1 });
    assert.deepEqual(await found('example'), { emails: ['hay@example.org', 'needle.person@example.com'], total: 2 });
    assert.deepEqual(await segmentMatches('contains', 'needle'), ['needle.person@example.com']);
    assert.deepEqual(await segmentMatches('domain_is', 'EXAMPLE.org'), ['hay@example.org']);
    // Shorter than a trigram: read from subscribers directly.
    assert.deepEqual(await found('y@'), { emails: ['hay@example.org'], total: 1 });
  });

  test('a changed address is found by its new text and no longer by its old one, folded or not', async () => {
    const s = await createSubscriber(t.db, { email: 'before.rename@example.com' });
    await foldAll(t.database.db);
    const res = await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload: { email: 'after.rename@example.com' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await pending(), 1, 'the changed id is pending');
    assert.deepEqual(await copied(), [`${s.id}:before.rename@example.com`], 'the copy is behind');
    assert.deepEqual(await found('before.ren'), { emails: [], total: 0 });
    assert.deepEqual(await found('after.ren'), { emails: ['after.rename@example.com'], total: 1 });

    await foldAll(t.database.db);
    assert.deepEqual(await copied(), [`${s.id}:after.rename@example.com`]);
    assert.deepEqual(await found('before.ren'), { emails: [], total: 0 });
    assert.deepEqual(await found('after.ren'), { emails: ['after.rename@example.com'], total: 1 });

    // A change of anything but the address leaves the copy alone.
    await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload: { email: 'after.rename@example.com', confirmed: true } });
    assert.equal(await pending(), 0);
  });

  test('a deleted subscriber leaves the copy with it', async () => {
    const s = await createSubscriber(t.db, { email: 'leaving.soon@example.com' });
    await foldAll(t.database.db);
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${s.id}`, headers });
    assert.equal(res.statusCode, 204, res.body);
    assert.deepEqual(await copied(), []);
    assert.deepEqual(await found('leaving'), { emails: [], total: 0 });
  });

  test('a long backlog is folded a bounded number of ids at a time, oldest first, and searchable throughout', async () => {
    await t.db.execute(
      sql`insert into subscribers (email, unique_id) select 'bulk' || g || '@example.net', md5(g::text) from generate_series(1, 25) g`,
    );
    await createSubscriber(t.db, { email: 'single@example.net' });
    assert.equal(await pending(), 2);
    const behind = async () => /\nmailroom_email_search_pending_ids (\d+)/.exec((await t.inject({ method: 'GET', url: '/metrics' })).body)?.[1];
    assert.equal(await behind(), '26', 'the ids not yet folded, for operators (GET /metrics)');
    assert.equal(await foldOnce(t.database.db, 10), 10, 'the first ten ids of the bulk range');
    assert.equal((await copied()).length, 10);
    assert.equal(await pending(), 2, 'the bulk range narrowed, not gone');
    assert.deepEqual((await found('example.net')).total, 26);
    assert.equal(await foldOnce(t.database.db, 10), 10);
    assert.equal(await foldOnce(t.database.db, 10), 6, 'the rest of the bulk range and the single insert');
    assert.equal(await pending(), 0);
    assert.equal(await behind(), '0');
    assert.equal((await copied()).length, 26);
    assert.deepEqual((await found('bulk2')).emails, [
      'bulk20@example.net',
      'bulk21@example.net',
      'bulk22@example.net',
      'bulk23@example.net',
      'bulk24@example.net',
      'bulk25@example.net',
      'bulk2@example.net',
    ]);
    assert.equal(await foldOnce(t.database.db, 10), 0);
  });

  test('is answered from the trigram index on the copy, on both databases', async () => {
    await createSubscriber(t.db, { email: 'needle.person@example.com' });
    await foldAll(t.database.db);
    // The planner would rightly scan a tiny table; with scans off it must show the index serves `ILIKE '%…%'`.
    const plan = await t.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return queryRows<{ 'QUERY PLAN': string }>(
        tx,
        sql`explain select subscriber_id from subscriber_email_search where email ilike ${'%edle.pers%'}`,
      );
    });
    assert.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /subscriber_email_search_trgm_idx/);
    const indexes = await queryRows<{ indexname: string }>(
      t.db,
      sql`select indexname from pg_indexes where tablename = 'subscribers' and indexdef ilike '%gin%'`,
    );
    assert.deepEqual(indexes, [], 'no trigram index left on subscribers, the table every import writes');
  });
});
