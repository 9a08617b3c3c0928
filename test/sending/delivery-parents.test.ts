import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createDatabase, queryRows } from '../../src/db/client.js';
import { subscribers } from '../../src/db/schema/index.js';
import { errorCodeOf, startTestApp, type TestApp } from '../helper.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { deliveryRows, freezeAudiences, listWithMembers, sendableCampaign } from './send-fixtures.js';

/*
 * deliveries keeps its campaign and subscriber by statement-level triggers (src/db/routines/021_delivery_parents.sql)
 * instead of row-by-row foreign keys. These tests hold the triggers to what the foreign keys guaranteed: no record
 * naming a missing parent, a concurrent delete cannot leave orphans, and a deleted parent's records go with it.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(async () => t.close());

const MISSING = 2147483000;

async function recordsOf(column: 'campaign_id' | 'subscriber_id', id: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from deliveries where ${sql.identifier(column)} = ${id}`);
  return row!.n;
}

describe('parents of deliveries', () => {
  test('a record naming a missing campaign or subscriber is refused with 23503 and nothing is written', async () => {
    const campaign = await createCampaign(t.db);
    const subscriber = await createSubscriber(t.db);
    const insert = (campaignId: number, subscriberId: number) =>
      t.db.execute(sql`insert into deliveries (campaign_id, subscriber_id) values (${campaignId}, ${subscriberId})`);
    assert.equal(await errorCodeOf(insert(MISSING, subscriber.id)), '23503');
    assert.equal(await errorCodeOf(insert(campaign.id, MISSING)), '23503');
    // One bad row among good ones fails the whole statement, a bulk INSERT … SELECT as the freeze writes them too.
    const other = await createSubscriber(t.db);
    assert.equal(
      await errorCodeOf(
        t.db.execute(sql`insert into deliveries (campaign_id, subscriber_id)
          select ${campaign.id}, id from unnest(array[${subscriber.id}, ${other.id}, ${MISSING}]::int[]) as id`),
      ),
      '23503',
    );
    assert.equal(await recordsOf('campaign_id', campaign.id), 0);
    // The good rows alone go in.
    await t.db.execute(
      sql`insert into deliveries (campaign_id, subscriber_id) values (${campaign.id}, ${subscriber.id}), (${campaign.id}, ${other.id})`,
    );
    assert.equal(await recordsOf('campaign_id', campaign.id), 2);
  });

  test('moving a record to another campaign or subscriber is checked the same way', async () => {
    const campaign = await createCampaign(t.db);
    const subscriber = await createSubscriber(t.db);
    const next = await createSubscriber(t.db);
    const delivery = await createDelivery(t.db, campaign.id, subscriber.id);
    const move = (column: 'campaign_id' | 'subscriber_id', id: number) =>
      t.db.execute(sql`update deliveries set ${sql.identifier(column)} = ${id} where id = ${delivery.id}`);
    assert.equal(await errorCodeOf(move('subscriber_id', MISSING)), '23503');
    assert.equal(await errorCodeOf(move('campaign_id', MISSING)), '23503');
    assert.equal(await errorCodeOf(move('subscriber_id', next.id)), undefined);
    assert.equal(await recordsOf('subscriber_id', next.id), 1);
    // Updates that leave the parents alone (claims, outcomes) are not checked at all, and work as before.
    await t.db.execute(sql`update deliveries set status = 'queued', attempts = 2 where id = ${delivery.id}`);
    assert.equal(await recordsOf('subscriber_id', next.id), 1);
  });

  test('deleting a subscriber or a campaign deletes their records, and only theirs', async () => {
    const [one, two] = [await createCampaign(t.db), await createCampaign(t.db)];
    const [gone, kept] = [await createSubscriber(t.db), await createSubscriber(t.db)];
    for (const c of [one, two]) for (const s of [gone, kept]) await createDelivery(t.db, c.id, s.id);

    await t.db.execute(sql`delete from subscribers where id = ${gone.id}`);
    assert.equal(await recordsOf('subscriber_id', gone.id), 0);
    assert.equal(await recordsOf('subscriber_id', kept.id), 2);

    const res = await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${one.id}`, headers });
    assert.ok(res.statusCode < 300, res.body);
    assert.equal(await recordsOf('campaign_id', one.id), 0);
    assert.equal(await recordsOf('campaign_id', two.id), 1);

    // Several parents in one statement.
    const [three, four] = [await createSubscriber(t.db), await createSubscriber(t.db)];
    for (const s of [three, four]) await createDelivery(t.db, two.id, s.id);
    await t.db.execute(sql`delete from subscribers where id in (${three.id}, ${four.id})`);
    assert.equal(await recordsOf('campaign_id', two.id), 1);
  });

  test('through the API: a deleted subscriber is gone from GET …/deliveries', async () => {
    const { list, members } = await listWithMembers(t.db, 2, { prefix: 'gone' });
    const c = await sendableCampaign(t.db, [list.id]);
    assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers })).statusCode, 200);
    await freezeAudiences(t.ctx);
    assert.equal((await deliveryRows(t.db, c.id)).length, 2);
    await t.db.delete(subscribers).where(eq(subscribers.id, members[0]!.id));
    const page = (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}/deliveries`, headers })).json();
    assert.deepEqual(
      page.items.map((d: { subscriber_id: number }) => d.subscriber_id),
      [members[1]!.id],
    );
    assert.equal(page.pagination.total, 1);
  });

  test(
    'a subscriber deleted while a record of them is being written waits for it, then takes it along',
    { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL: two connections' },
    async () => {
      const campaign = await createCampaign(t.db);
      const subscriber = await createSubscriber(t.db);
      const second = await createDatabase({ databaseUrl: t.databaseUrl, poolSize: 2 });
      try {
        let deleted: Promise<unknown> | undefined;
        let settled = false;
        await second.db.transaction(async (tx) => {
          await tx.execute(sql`insert into deliveries (campaign_id, subscriber_id) values (${campaign.id}, ${subscriber.id})`);
          deleted = t.db.execute(sql`delete from subscribers where id = ${subscriber.id}`).finally(() => (settled = true));
          await new Promise((r) => setTimeout(r, 300));
          assert.equal(settled, false, 'the delete waits for the transaction holding the subscriber');
        });
        await deleted;
      } finally {
        await second.close();
      }
      assert.equal(await recordsOf('subscriber_id', subscriber.id), 0, 'no orphan left behind');
    },
  );
});
