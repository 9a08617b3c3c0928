import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createDatabase, queryRows, type Executor } from '../../src/db/client.js';
import { errorCodeOf, PG_ONLY, startTestApp, withinLockTimeout, type TestApp } from '../helper.js';
import { createList, createSubscriber, subscribe } from '../factories.js';

/*
 * subscriptions, subscriber_attribute_values and subscriber_history keep their parents by statement-level triggers
 * (src/db/routines/012_subscriber_children.sql) instead of row-by-row foreign keys. These tests hold the triggers to
 * what the foreign keys guaranteed: no row naming a missing parent, and the rows of a deleted parent go with it.
 * The HTTP tests of subscribers, lists and attributes cover the same cascades through the API.
 */

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => t.close());

async function countOf(table: string, column: string, id: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    t.db,
    sql`select count(*)::int as n from ${sql.identifier(table)} where ${sql.identifier(column)} = ${id}`,
  );
  return row!.n;
}

describe('parents of subscriptions, attribute values and history', () => {
  test('a row naming a missing subscriber, list or definition is refused with 23503 and nothing is written', async () => {
    const list = await createList(t.db);
    const subscriber = await createSubscriber(t.db);
    const [definition] = await queryRows<{ id: number }>(
      t.db,
      sql`insert into attribute_definitions (name, type) values ('ri-city', 'textline') returning id`,
    );

    assert.equal(await errorCodeOf(t.db.execute(sql`insert into subscriptions (list_id, subscriber_id) values (${list.id}, 2147483000)`)), '23503');
    assert.equal(
      await errorCodeOf(t.db.execute(sql`insert into subscriptions (list_id, subscriber_id) values (2147483000, ${subscriber.id})`)),
      '23503',
    );
    assert.equal(
      await errorCodeOf(
        t.db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value) values (2147483000, ${definition!.id}, 'x')`),
      ),
      '23503',
    );
    assert.equal(
      await errorCodeOf(
        t.db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value) values (${subscriber.id}, 2147483000, 'x')`),
      ),
      '23503',
    );
    assert.equal(
      await errorCodeOf(t.db.execute(sql`insert into subscriber_history (subscriber_id, summary) values (2147483000, 'orphan')`)),
      '23503',
    );
    // One bad row among good ones fails the whole statement.
    assert.equal(
      await errorCodeOf(
        t.db.execute(sql`insert into subscriber_history (subscriber_id, summary) values (${subscriber.id}, 'fine'), (2147483000, 'orphan')`),
      ),
      '23503',
    );
    assert.equal(await countOf('subscriptions', 'subscriber_id', subscriber.id), 0);
    assert.equal(await countOf('subscriber_history', 'subscriber_id', subscriber.id), 0);
    assert.equal(await countOf('subscriber_attribute_values', 'subscriber_id', subscriber.id), 0);
  });

  test('deleting a subscriber, a list or a definition deletes the rows that named it, and member counts follow', async () => {
    const headers = (await t.adminWithSession()).headers;
    const list = await createList(t.db);
    const keep = await createSubscriber(t.db);
    const gone = await createSubscriber(t.db);
    await subscribe(t.db, list.id, keep.id);
    await subscribe(t.db, list.id, gone.id);
    const [definition] = await queryRows<{ id: number }>(
      t.db,
      sql`insert into attribute_definitions (name, type) values ('ri-town', 'textline') returning id`,
    );
    await t.db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value)
      values (${keep.id}, ${definition!.id}, 'a'), (${gone.id}, ${definition!.id}, 'b')`);
    await t.db.execute(sql`insert into subscriber_history (subscriber_id, summary) values (${keep.id}, 'k'), (${gone.id}, 'g')`);

    await t.db.execute(sql`delete from subscribers where id = ${gone.id}`);
    assert.equal(await countOf('subscriptions', 'subscriber_id', gone.id), 0);
    assert.equal(await countOf('subscriber_attribute_values', 'subscriber_id', gone.id), 0);
    assert.equal(await countOf('subscriber_history', 'subscriber_id', gone.id), 0);
    assert.equal(await countOf('subscriber_history', 'subscriber_id', keep.id), 1);
    const count = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers/count`, headers });
    assert.deepEqual(count.json(), { subscribers_count: 1 });

    await t.db.execute(sql`delete from attribute_definitions where id = ${definition!.id}`);
    assert.equal(await countOf('subscriber_attribute_values', 'definition_id', definition!.id), 0);

    await t.db.execute(sql`delete from lists where id = ${list.id}`);
    assert.equal(await countOf('subscriptions', 'list_id', list.id), 0);
    assert.equal(await countOf('subscriptions', 'subscriber_id', keep.id), 0);
  });
});

/*
 * A parent whose row version the inserting transaction wrote is counted, not locked (require_rows in
 * 012_subscriber_children.sql): an import names the subscribers it has just inserted.
 */
describe('parents written by the same transaction', () => {
  test('a subscriber inserted in the transaction is found, and a missing one beside it is still refused with 23503', async () => {
    const list = await createList(t.db);
    const committed = await createSubscriber(t.db);
    const updated = await createSubscriber(t.db);
    const own = await t.db.transaction(async (tx) => {
      const id = await createSubscriberIn(tx, 'ri-own@example.com');
      await tx.execute(sql`update subscribers set confirmed = true where id = ${updated.id}`);
      // Three parents in one statement: inserted here, updated here, and committed before (locked).
      await tx.execute(
        sql`insert into subscriptions (list_id, subscriber_id) values (${list.id}, ${id}), (${list.id}, ${updated.id}), (${list.id}, ${committed.id})`,
      );
      await tx.execute(sql`insert into subscriber_history (subscriber_id, summary) values (${id}, 'own'), (${updated.id}, 'updated')`);
      return id;
    });
    assert.equal(await countOf('subscriptions', 'list_id', list.id), 3);
    assert.equal(await countOf('subscriber_history', 'subscriber_id', own), 1);
    assert.equal(await countOf('subscriber_history', 'subscriber_id', updated.id), 1);

    const code = await errorCodeOf(
      t.db.transaction(async (tx) => {
        const id = await createSubscriberIn(tx, 'ri-own-2@example.com');
        await tx.execute(sql`insert into subscriptions (list_id, subscriber_id) values (${list.id}, ${id}), (${list.id}, 2147483000)`);
      }),
    );
    assert.equal(code, '23503');
    assert.equal(await countOf('subscriptions', 'list_id', list.id), 3);
    const [gone] = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from subscribers where email = 'ri-own-2@example.com'`);
    assert.equal(gone!.n, 0);
  });
});

async function createSubscriberIn(db: Executor, email: string): Promise<number> {
  const [row] = await queryRows<{ id: number }>(db, sql`insert into subscribers (email, unique_id) values (${email}, md5(${email})) returning id`);
  return row!.id;
}

describe('parents held until the writing transaction ends', { skip: PG_ONLY }, () => {
  test('a delete of a parent the open transaction names waits for it, whether it locked the parent or updated it', async () => {
    const list = await createList(t.db);
    const committed = await createSubscriber(t.db);
    const updated = await createSubscriber(t.db);
    const second = await createDatabase({ databaseUrl: t.databaseUrl, poolSize: 1 });
    try {
      await second.db.transaction(async (tx) => {
        await tx.execute(sql`update subscribers set disabled = true where id = ${updated.id}`);
        await tx.execute(sql`insert into subscriptions (list_id, subscriber_id) values (${list.id}, ${committed.id}), (${list.id}, ${updated.id})`);
        for (const id of [committed.id, updated.id]) {
          const code = await withinLockTimeout(t.db, 300, (other) => other.execute(sql`delete from subscribers where id = ${id}`));
          assert.equal(code, '55P03', `the delete of subscriber ${id} waited for the transaction`);
        }
      });
    } finally {
      await second.close();
    }
    // Once it has committed, the delete goes through and takes the subscriptions with it.
    assert.equal(await withinLockTimeout(t.db, 300, (tx) => tx.execute(sql`delete from subscribers where id = ${committed.id}`)), 'done');
    assert.equal(await countOf('subscriptions', 'subscriber_id', committed.id), 0);
    assert.equal(await countOf('subscriptions', 'subscriber_id', updated.id), 1);
  });
});
