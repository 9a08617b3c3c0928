import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { blacklist, lists, subscribers, subscriptions } from '../../src/db/schema/index.js';
import { createDatabase, queryRows } from '../../src/db/client.js';
import { SENDABLE_FLAGS } from '../../src/subscription/index.js';
import { createSubscriber, subscribe } from '../factories.js';
import { PG_ONLY, startTestApp, withinLockTimeout, type TestApp } from '../helper.js';
import { deliveryRows, freezeAudiences, listWithMembers, parkOtherCampaigns, sendableCampaign } from './send-fixtures.js';

/*
 * GET /api/v2/campaigns/{id}/audience: the number the console's send confirmation names, which must be the number
 * of records the workers then freeze.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const get = (url: string, h: Record<string, string> = headers) => t.inject({ method: 'GET', url: `/api/v2${url}`, headers: h });

describe('GET /api/v2/campaigns/{id}/audience', () => {
  test('authentication, privilege, unknown campaign, non-digit id', async () => {
    const anonymous = await t.inject({ method: 'GET', url: '/api/v2/campaigns/1/audience' });
    assert.equal(anonymous.statusCode, 403);
    assert.deepEqual(anonymous.json(), { message: 'No valid session key was provided as basic auth password.' });
    const { headers: noPrivilege } = await t.adminWithSession({ superUser: false, privileges: { statistics: true } });
    const denied = await get('/campaigns/1/audience', noPrivilege);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to manage campaigns.' });
    const unknown = await get('/campaigns/999999/audience');
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { message: 'Campaign not found.' });
    const letters = await get('/campaigns/abc/audience');
    assert.equal(letters.statusCode, 404);
    assert.match(letters.json().message, /^No route found for /);
  });

  test('a campaign without lists goes to nobody', async () => {
    const c = await sendableCampaign(t.db, []);
    const res = await get(`/campaigns/${c.id}/audience`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { count: 0, lists: 0, text_only: 0 });
  });

  test('distinct sendable members of its lists, by the rule the freeze uses, and the freeze makes that many records', async () => {
    const { list: a, members } = await listWithMembers(t.db, 3, { prefix: 'aud-a' });
    const { list: b } = await listWithMembers(t.db, 2, { prefix: 'aud-b' });
    await subscribe(t.db, b.id, members[0]!.id); // on both lists: counted once
    const unconfirmed = await createSubscriber(t.db, { email: 'aud-unconfirmed@example.com', confirmed: false });
    const flagged = await createSubscriber(t.db, { email: 'aud-flagged@example.com', confirmed: true, blacklisted: true });
    const disabled = await createSubscriber(t.db, { email: 'aud-disabled@example.com', confirmed: true, disabled: true });
    const listed = await createSubscriber(t.db, { email: 'Aud-Listed@example.com', confirmed: true });
    await t.db.insert(blacklist).values({ email: 'aud-listed@EXAMPLE.com' });
    for (const s of [unconfirmed, flagged, disabled, listed]) await subscribe(t.db, a.id, s.id);
    // A list the campaign is not sent to does not count.
    await listWithMembers(t.db, 4, { prefix: 'aud-other' });
    const c = await sendableCampaign(t.db, [a.id, b.id]);

    const res = await get(`/campaigns/${c.id}/audience`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { count: 5, lists: 2, text_only: 0 });

    await parkOtherCampaigns(t.db, c.id);
    assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers })).statusCode, 200);
    await freezeAudiences(t.ctx);
    assert.equal((await deliveryRows(t.db, c.id)).length, 5);
  });

  test('text_only: the recipients whose html_email is false, by the same rule; null for a campaign sent as text', async () => {
    const { list, members } = await listWithMembers(t.db, 4, { prefix: 'aud-text' });
    const { list: second } = await listWithMembers(t.db, 1, { prefix: 'aud-text-b' });
    await t.db
      .update(subscribers)
      .set({ htmlEmail: false })
      .where(sql`${subscribers.id} in (${members[0]!.id}, ${members[1]!.id})`);
    // Not sendable, so not counted as text-only either.
    const unconfirmed = await createSubscriber(t.db, { email: 'aud-text-unconfirmed@example.com', confirmed: false, htmlEmail: false });
    const listed = await createSubscriber(t.db, { email: 'aud-text-listed@example.com', confirmed: true, htmlEmail: false });
    await t.db.insert(blacklist).values({ email: 'AUD-TEXT-LISTED@example.com' });
    for (const s of [unconfirmed, listed]) await subscribe(t.db, list.id, s.id);

    const html = await sendableCampaign(t.db, [list.id]);
    assert.deepEqual((await get(`/campaigns/${html.id}/audience`)).json(), { count: 4, lists: 1, text_only: 2 });
    const invite = await sendableCampaign(t.db, [list.id, second.id], { sendFormat: 'invite' });
    assert.deepEqual((await get(`/campaigns/${invite.id}/audience`)).json(), { count: 5, lists: 2, text_only: 2 });
    const text = await sendableCampaign(t.db, [list.id], { sendFormat: 'text' });
    assert.deepEqual((await get(`/campaigns/${text.id}/audience`)).json(), { count: 4, lists: 1, text_only: null });
  });

  test('text_only is counted through the partial index of sendable text-only subscribers, not a pass over all of them', async () => {
    // The planner would rightly scan a tiny table; with scans off it must show the index's predicate serves the count.
    const plan = await t.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return queryRows<{ 'QUERY PLAN': string }>(
        tx,
        sql`explain select count(*) from subscribers s
            where ${SENDABLE_FLAGS} and exists (select 1 from subscriptions m where m.list_id = 1 and m.subscriber_id = s.id)
              and not s.html_email`,
      );
    });
    assert.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /subscribers_sendable_text_only_idx/);
  });

  test('one list is answered from the sendable counters, which follow every change that moves a member in or out', async () => {
    const { list, members } = await listWithMembers(t.db, 4, { prefix: 'cnt' });
    const other = (await listWithMembers(t.db, 1, { prefix: 'cnt-other' })).list;
    const c = await sendableCampaign(t.db, [list.id]);
    // The rule itself, counted row by row: what the counters must always equal.
    const exact = async () => {
      const [row] = await queryRows<{ n: number }>(
        t.db,
        sql`select count(*)::int as n from subscriptions m join subscribers s on s.id = m.subscriber_id
            where m.list_id = ${list.id} and s.confirmed and not s.blacklisted and not s.disabled
              and not exists (select 1 from blacklist b where lower(b.email) = lower(s.email))`,
      );
      return row!.n;
    };
    const expectCount = async (count: number, step: string) => {
      assert.equal(await exact(), count, `the rule, after ${step}`);
      const res = await get(`/campaigns/${c.id}/audience`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { count, lists: 1, text_only: 0 }, `the endpoint, after ${step}`);
    };
    await expectCount(4, 'subscribing four confirmed members');

    const [a, b, d, e] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0], (typeof members)[0]];
    await t.db.update(subscribers).set({ confirmed: false }).where(eq(subscribers.id, a.id));
    await expectCount(3, 'unconfirming one');
    await t.db.update(subscribers).set({ bounceCount: 3 }).where(eq(subscribers.id, a.id));
    await expectCount(3, 'an update of no flag');
    await t.db.update(subscribers).set({ confirmed: true }).where(eq(subscribers.id, a.id));
    await expectCount(4, 'confirming it again');
    await t.db.update(subscribers).set({ blacklisted: true }).where(eq(subscribers.id, b.id));
    await t.db.update(subscribers).set({ disabled: true }).where(eq(subscribers.id, d.id));
    await expectCount(2, 'flagging one blacklisted and disabling one');
    await t.db
      .update(subscribers)
      .set({ blacklisted: false, disabled: false })
      .where(sql`${subscribers.id} in (${b.id}, ${d.id})`);
    await expectCount(4, 'clearing both flags in one statement');

    // The blacklist table, matched without regard to case; an address changed onto and off it.
    await t.db.insert(blacklist).values({ email: e.email.toUpperCase() });
    await expectCount(3, "blacklisting a member's address");
    await t.db
      .update(blacklist)
      .set({ reason: 'still listed' })
      .where(sql`lower(${blacklist.email}) = ${e.email.toLowerCase()}`);
    await expectCount(3, 'editing the entry but not its address');
    await t.db
      .update(blacklist)
      .set({ email: 'cnt-nobody@example.com' })
      .where(sql`lower(${blacklist.email}) = ${e.email.toLowerCase()}`);
    await expectCount(4, "moving the entry to an address that is nobody's");
    await t.db.update(subscribers).set({ email: 'CNT-Nobody@example.com' }).where(eq(subscribers.id, e.id));
    await expectCount(3, 'changing a member address to the blacklisted one');
    await t.db.delete(blacklist).where(sql`lower(${blacklist.email}) = 'cnt-nobody@example.com'`);
    await expectCount(4, 'removing the entry');

    // A member that is not sendable joining, then leaving, changes nothing; a sendable one does.
    const unconfirmed = await createSubscriber(t.db, { email: 'cnt-unconfirmed@example.com', confirmed: false });
    await subscribe(t.db, list.id, unconfirmed.id);
    await expectCount(4, 'an unconfirmed subscriber joining');
    await t.db.delete(subscriptions).where(eq(subscriptions.subscriberId, unconfirmed.id));
    await expectCount(4, 'it leaving');
    await t.db.delete(subscriptions).where(sql`${subscriptions.listId} = ${list.id} and ${subscriptions.subscriberId} = ${a.id}`);
    await expectCount(3, 'a member unsubscribing');
    await t.db.update(subscriptions).set({ listId: list.id }).where(eq(subscriptions.listId, other.id));
    await expectCount(4, "moving the other list's member onto this one");

    // Deleting a subscriber (its subscriptions go with it) and deleting the list (its counters go with it).
    await t.db.delete(subscribers).where(eq(subscribers.id, b.id));
    await expectCount(3, 'deleting a member subscriber');
    await t.db.delete(lists).where(eq(lists.id, list.id));
    const left = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from list_sendable_counts where list_id = ${list.id}`);
    assert.deepEqual(left, [{ n: 0 }]);
  });
});

describe('the sendable counters under concurrent writers', { skip: PG_ONLY }, () => {
  test("a subscription being written holds its subscriber's flags until it commits, whether it locked the row or updated it", async () => {
    const { list } = await listWithMembers(t.db, 1, { prefix: 'race' });
    const committed = await createSubscriber(t.db, { email: 'race-committed@example.com', confirmed: true });
    const updated = await createSubscriber(t.db, { email: 'race-updated@example.com', confirmed: false });
    const flagChangeWaits = (id: number) =>
      withinLockTimeout(t.db, 300, (tx) => tx.execute(sql`update subscribers set confirmed = not confirmed where id = ${id}`));
    const second = await createDatabase({ databaseUrl: t.databaseUrl, poolSize: 1 });
    try {
      await second.db.transaction(async (tx) => {
        await tx.execute(sql`update subscribers set confirmed = true where id = ${updated.id}`);
        await tx.execute(sql`insert into subscriptions (list_id, subscriber_id) values (${list.id}, ${committed.id}), (${list.id}, ${updated.id})`);
        assert.equal(await flagChangeWaits(committed.id), '55P03');
        assert.equal(await flagChangeWaits(updated.id), '55P03');
      });
    } finally {
      await second.close();
    }
    const c = await sendableCampaign(t.db, [list.id]);
    assert.deepEqual((await get(`/campaigns/${c.id}/audience`)).json(), { count: 3, lists: 1, text_only: 0 });
  });
});
