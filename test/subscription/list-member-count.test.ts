import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { listMemberCounts, lists, subscribers, subscriptions } from '../../src/db/schema/index.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

async function count(listId: number): Promise<number> {
  const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${listId}/subscribers/count`, headers });
  assert.equal(res.statusCode, 200);
  const alias = await t.inject({ method: 'GET', url: `/api/v2/lists/${listId}/count`, headers });
  assert.deepEqual(alias.json(), res.json());
  return (res.json() as { subscribers_count: number }).subscribers_count;
}

/** What the counter says must be what a scan says. */
async function assertTrueCount(listId: number, expected: number): Promise<void> {
  const [row] = await t.db
    .select({ n: sql<number>`count(*)::int` })
    .from(subscriptions)
    .where(eq(subscriptions.listId, listId));
  assert.equal(row!.n, expected, 'rows in subscriptions');
  assert.equal(await count(listId), expected, 'counter');
}

/** Bulk-inserts `n` new subscribers in one statement and subscribes them all to the list in another. */
async function bulkSubscribe(listId: number, n: number, tag: string): Promise<void> {
  await t.db.execute(sql`
    insert into ${subscribers} (email, unique_id)
    select ${tag} || '-' || i || '@bulk.example.com', md5(${tag} || i::text)
    from generate_series(1, ${n}) as i`);
  await t.db.execute(sql`
    insert into ${subscriptions} (list_id, subscriber_id)
    select ${listId}, id from ${subscribers} where email like ${`${tag}-%@bulk.example.com`}`);
}

describe('list member counter', () => {
  test('follows adds and removes through the API, and ignores repeated adds and unknown removes', async () => {
    const list = await createList(t.db);
    assert.equal(await count(list.id), 0);
    // Adding members takes existing subscribers only (an unknown address is a 404).
    for (let i = 1; i <= 4; i++) await createSubscriber(t.db, { email: `c${i}@count.example.com` });
    const add = (emails: string[]) =>
      t.inject({ method: 'POST', url: `/api/v2/lists/${list.id}/subscribers`, headers, payload: { emails, auto_confirm: true } });
    assert.equal((await add(['c1@count.example.com', 'c2@count.example.com', 'c3@count.example.com'])).statusCode, 201);
    await assertTrueCount(list.id, 3);
    assert.equal((await add(['c1@count.example.com', 'c4@count.example.com'])).statusCode, 201);
    await assertTrueCount(list.id, 4);
    const remove = await t.inject({
      method: 'DELETE',
      url: `/api/v2/lists/${list.id}/subscribers?emails[]=c1@count.example.com&emails[]=c2@count.example.com&emails[]=nobody@count.example.com`,
      headers,
    });
    assert.equal(remove.statusCode, 204);
    await assertTrueCount(list.id, 2);
  });

  test('deleting a subscriber lowers the count of each of their lists', async () => {
    const a = await createList(t.db);
    const b = await createList(t.db);
    const s1 = await createSubscriber(t.db);
    const s2 = await createSubscriber(t.db);
    await subscribe(t.db, a.id, s1.id);
    await subscribe(t.db, b.id, s1.id);
    await subscribe(t.db, a.id, s2.id);
    await assertTrueCount(a.id, 2);
    await assertTrueCount(b.id, 1);
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${s1.id}`, headers });
    assert.equal(res.statusCode, 204);
    await assertTrueCount(a.id, 1);
    await assertTrueCount(b.id, 0);
  });

  test('a bulk insert of 5,000 members writes the list counter once, and bulk deletes take them off again', async () => {
    const list = await createList(t.db);
    const other = await createList(t.db);
    await bulkSubscribe(list.id, 5000, 'bulk5k');
    await assertTrueCount(list.id, 5000);
    await assertTrueCount(other.id, 0);
    // One statement from one session: one counter row, not one per subscription.
    const rows = await t.db.select().from(listMemberCounts).where(eq(listMemberCounts.listId, list.id));
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.members, 5000);

    await t.db.execute(sql`
      insert into ${subscriptions} (list_id, subscriber_id)
      select ${other.id}, subscriber_id from ${subscriptions} where list_id = ${list.id} and subscriber_id % 2 = 0`);
    await assertTrueCount(other.id, 2500);
    await t.db.execute(sql`delete from ${subscriptions} where list_id = ${list.id} and subscriber_id % 5 = 0`);
    await assertTrueCount(list.id, 4000);
    await t.db.execute(sql`delete from ${subscribers} where email like 'bulk5k-%@bulk.example.com' and id % 2 = 0`);
    await assertTrueCount(list.id, 2000);
    await assertTrueCount(other.id, 0);
  });

  test('moving subscriptions to another list moves the counts; touching them changes nothing', async () => {
    const from = await createList(t.db);
    const to = await createList(t.db);
    await bulkSubscribe(from.id, 30, 'move30');
    await t.db.update(subscriptions).set({ updatedAt: new Date() }).where(eq(subscriptions.listId, from.id));
    await assertTrueCount(from.id, 30);
    await t.db.execute(sql`update ${subscriptions} set list_id = ${to.id} where list_id = ${from.id} and subscriber_id % 3 = 0`);
    await assertTrueCount(from.id, 20);
    await assertTrueCount(to.id, 10);
  });

  test('deleting a list removes its counter and leaves the other lists of its members right', async () => {
    const doomed = await createList(t.db);
    const kept = await createList(t.db);
    const s1 = await createSubscriber(t.db);
    const s2 = await createSubscriber(t.db);
    for (const s of [s1, s2]) {
      await subscribe(t.db, doomed.id, s.id);
      await subscribe(t.db, kept.id, s.id);
    }
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${doomed.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.deepEqual(await t.db.select().from(listMemberCounts).where(eq(listMemberCounts.listId, doomed.id)), []);
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/lists/${doomed.id}/subscribers/count`, headers })).statusCode, 404);
    await assertTrueCount(kept.id, 2);
    // Deleting lists in bulk, members and all, in one statement.
    const many = await Promise.all([createList(t.db), createList(t.db)]);
    for (const l of many) await subscribe(t.db, l.id, s1.id);
    await t.db.execute(sql`delete from ${lists} where id in (${many[0]!.id}, ${many[1]!.id})`);
    await assertTrueCount(kept.id, 2);
  });

  test('the member page total is the counter', async () => {
    const list = await createList(t.db);
    await bulkSubscribe(list.id, 120, 'page120');
    const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers?limit=2`, headers });
    assert.equal(res.json().pagination.total, 120);
  });
});

describe('subscriber counter', () => {
  test('the unfiltered GET /subscribers total follows creates, bulk inserts and deletes; filtered totals still count', async () => {
    const total = async (query = '') => {
      const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers?limit=1${query}`, headers });
      assert.equal(res.statusCode, 200);
      return res.json().pagination.total as number;
    };
    const scan = async () => {
      const [row] = await t.db.select({ n: sql<number>`count(*)::int` }).from(subscribers);
      return row!.n;
    };
    assert.equal(await total(), await scan());
    const created = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email: 'counted@example.com' } });
    assert.equal(created.statusCode, 201);
    assert.equal(await total(), await scan());
    const list = await createList(t.db);
    await bulkSubscribe(list.id, 700, 'subcount');
    assert.equal(await total(), await scan());
    await t.db.execute(sql`delete from ${subscribers} where email like 'subcount-%' and id % 3 = 0`);
    const remove = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${created.json().id}`, headers });
    assert.equal(remove.statusCode, 204);
    assert.equal(await total(), await scan());
    const [confirmed] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(subscribers)
      .where(eq(subscribers.confirmed, true));
    assert.equal(await total('&is_confirmed=true'), confirmed!.n);
  });
});
