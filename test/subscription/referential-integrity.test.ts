import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { startTestApp, type TestApp } from '../helper.js';
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

async function errorCodeOf(statement: Promise<unknown>): Promise<string | undefined> {
  try {
    await statement;
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } };
    return e.code ?? e.cause?.code;
  }
  return undefined;
}

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
