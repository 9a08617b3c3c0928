import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../src/context.js';
import { createDatabase } from '../../src/db/client.js';
import { blacklist, campaignAudienceSources, campaigns } from '../../src/db/schema/index.js';
import { freezePending } from '../../src/sending/audience-freeze.js';
import { tryFreezeLock } from '../../src/sending/audience.repository.js';
import { promoteDueCampaigns } from '../../src/sending/campaign-run.js';
import { startWorker } from '../../src/sending/worker.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { PG_ONLY, startTestApp, type TestApp } from '../helper.js';
import { countersOf, deliveryRows, freezeAudiences, listWithMembers, parkOtherCampaigns, recipientsOf, sendableCampaign } from './send-fixtures.js';

/*
 * Freezing the audience in the background (reference §7.1's `prepared` step): the request that submits only marks
 * the lists; a worker freezes them chunk by chunk, resumably, one worker at a time per campaign, and the campaign
 * goes submitted → prepared → inprocess.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const api = async (method: 'POST' | 'PATCH', url: string, payload?: object) => {
  const res = await t.inject({ method, url: `/api/v2${url}`, headers, ...(payload ? { payload } : {}) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
const statusOf = async (id: number) =>
  (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}`, headers })).json().message_metadata.status as string;
const sources = (id: number) =>
  t.db
    .select({
      listId: campaignAudienceSources.listId,
      through: campaignAudienceSources.frozenThroughSubscriberId,
      frozenAt: campaignAudienceSources.frozenAt,
    })
    .from(campaignAudienceSources)
    .where(eq(campaignAudienceSources.campaignId, id))
    .orderBy(asc(campaignAudienceSources.listId));

/** One worker pass of the freezing steps only, at most one chunk per campaign (nothing is sent). */
async function onePass(chunkSize: number, ctx: AppContext = t.ctx) {
  await promoteDueCampaigns(ctx);
  return freezePending(ctx, { chunkSize, turnMs: 0, isStopping: () => false });
}

describe('freezing in the background', () => {
  test('send writes no record; the worker freezes chunk by chunk (prepared), then the campaign goes inprocess', async () => {
    const list = await createList(t.db);
    const other = await createList(t.db);
    const m = [];
    for (let i = 0; i < 10; i++) {
      const s = await createSubscriber(t.db, {
        email: `chunk-${i}@example.com`,
        confirmed: i !== 2,
        disabled: i === 7,
      });
      await subscribe(t.db, list.id, s.id);
      m.push(s);
    }
    await t.db.insert(blacklist).values({ email: 'chunk-5@example.com' });
    const late = await createSubscriber(t.db, { email: 'chunk-late@example.com', confirmed: true });
    for (const s of [m[0]!, m[9]!, late]) await subscribe(t.db, other.id, s.id);
    const c = await sendableCampaign(t.db, [list.id, other.id]);

    const sent = await api('POST', `/campaigns/${c.id}/send`);
    assert.equal(sent.message_metadata.status, 'submitted');
    assert.deepEqual(await deliveryRows(t.db, c.id), []);
    assert.deepEqual(await sources(c.id), [
      { listId: list.id, through: 0, frozenAt: null },
      { listId: other.id, through: 0, frozenAt: null },
    ]);

    // Chunks of 3 members: the first list in four (the last one short, which ends it), then the second in two.
    const expected = [
      { added: 2, through: [m[2]!.id, 0] }, // 0, 1 (2 is unconfirmed)
      { added: 2, through: [m[5]!.id, 0] }, // 3, 4 (5's address is blacklisted)
      { added: 2, through: [m[8]!.id, 0] }, // 6, 8 (7 is disabled)
      { added: 1, through: [m[9]!.id, 0] }, // 9; the first list is done
      { added: 1, through: [m[9]!.id, late.id] }, // 0 and 9 have a record already; late
    ];
    for (const [i, step] of expected.entries()) {
      const pass = await onePass(3);
      assert.equal(pass.added, step.added, `pass ${i + 1}`);
      assert.equal(await statusOf(c.id), 'prepared', `pass ${i + 1}`);
      assert.deepEqual(
        (await sources(c.id)).map((s) => s.through),
        step.through,
        `pass ${i + 1}`,
      );
      const records = (await deliveryRows(t.db, c.id)).length;
      assert.deepEqual(await countersOf(t.db, c.id), { queued: records, sent: 0, failed: 0, skipped: 0 });
    }
    assert.equal((await t.db.select().from(campaigns).where(eq(campaigns.id, c.id)))[0]!.audienceFrozenAt, null);

    const last = await onePass(3);
    assert.deepEqual({ added: last.added, started: last.started }, { added: 0, started: [c.id] });
    assert.equal(await statusOf(c.id), 'inprocess');
    assert.ok((await sources(c.id)).every((s) => s.frozenAt !== null));
    const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, c.id));
    assert.ok(row!.audienceFrozenAt && row!.sendStart);
    const rows = await deliveryRows(t.db, c.id);
    assert.deepEqual(
      rows.map((r) => r.subscriberId),
      [m[0]!, m[1]!, m[3]!, m[4]!, m[6]!, m[8]!, m[9]!, late].map((s) => s.id),
    );
    assert.ok(rows.every((r) => r.status === 'queued' && r.attempts === 0));
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 8, sent: 0, failed: 0, skipped: 0 });
  });

  test('suspending while freezing stops it; resuming continues where it stopped, nobody twice', async () => {
    const { list, members } = await listWithMembers(t.db, 6, { prefix: 'pause-freeze' });
    const c = await sendableCampaign(t.db, [list.id]);
    await api('POST', `/campaigns/${c.id}/send`);
    assert.equal((await onePass(2)).added, 2);
    assert.equal(await statusOf(c.id), 'prepared');

    await api('PATCH', `/campaigns/${c.id}/status`, { status: 'suspended' });
    assert.equal((await onePass(2)).added, 0);
    assert.equal(await statusOf(c.id), 'suspended');
    assert.deepEqual(await sources(c.id), [{ listId: list.id, through: members[1]!.id, frozenAt: null }]);

    // A resend while suspended marks its list too; it is frozen once the campaign is resumed.
    const extra = await createList(t.db);
    const newcomer = await createSubscriber(t.db, { email: 'pause-freeze-extra@example.com', confirmed: true });
    await subscribe(t.db, extra.id, newcomer.id);
    await subscribe(t.db, extra.id, members[0]!.id);
    assert.equal((await api('POST', `/campaigns/${c.id}/resend`, { list_ids: [extra.id] })).message_metadata.status, 'suspended');
    assert.equal((await onePass(2)).added, 0);

    // Resuming keeps the list's place: the next chunk starts after the second member, not from the start.
    assert.equal((await api('POST', `/campaigns/${c.id}/send`)).message_metadata.status, 'submitted');
    assert.deepEqual((await sources(c.id))[0], { listId: list.id, through: members[1]!.id, frozenAt: null });
    assert.equal((await onePass(2)).added, 2);
    assert.equal((await onePass(2)).added, 2);
    assert.equal((await onePass(2)).added, 0); // the first list's short last chunk
    assert.equal((await onePass(2)).added, 1); // the resend's list: members[0] has a record already
    assert.equal(await statusOf(c.id), 'prepared');
    assert.equal((await onePass(2)).added, 0); // …and its empty last chunk
    assert.equal(await statusOf(c.id), 'inprocess');
    assert.deepEqual(
      (await deliveryRows(t.db, c.id)).map((r) => r.subscriberId),
      [...members, newcomer].map((s) => s.id),
    );
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 7, sent: 0, failed: 0, skipped: 0 });
  });

  test('a chunk run again (its worker died before the progress was kept) gives nobody a second record', async () => {
    const { list } = await listWithMembers(t.db, 5, { prefix: 'again' });
    const c = await sendableCampaign(t.db, [list.id]);
    await api('POST', `/campaigns/${c.id}/send`);
    await freezeAudiences(t.ctx, 2);
    assert.equal(await statusOf(c.id), 'inprocess');
    const before = (await deliveryRows(t.db, c.id)).map((r) => r.id);
    assert.equal(before.length, 5);

    await t.db
      .update(campaignAudienceSources)
      .set({ frozenThroughSubscriberId: 0, frozenAt: null })
      .where(eq(campaignAudienceSources.campaignId, c.id));
    const again = await freezeAudiences(t.ctx, 2);
    assert.equal(again.added, 0);
    assert.deepEqual(
      (await deliveryRows(t.db, c.id)).map((r) => r.id),
      before,
    );
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 5, sent: 0, failed: 0, skipped: 0 });
    assert.ok((await sources(c.id)).every((s) => s.frozenAt !== null));
  });

  test('a resend while the campaign is being sent is frozen as it goes; the campaign does not end before', async () => {
    const { list, members } = await listWithMembers(t.db, 2, { prefix: 'mid-a' });
    const { list: more, members: newcomers } = await listWithMembers(t.db, 3, { prefix: 'mid-b' });
    await subscribe(t.db, more.id, members[0]!.id);
    const c = await sendableCampaign(t.db, [list.id]);
    await api('POST', `/campaigns/${c.id}/send`);
    await freezeAudiences(t.ctx);
    assert.equal((await api('POST', `/campaigns/${c.id}/resend`, { list_ids: [more.id] })).message_metadata.status, 'inprocess');

    await parkOtherCampaigns(t.db, c.id);
    const worker = startWorker(t.ctx, { loop: false, freezeChunk: 1, turnMs: 0 });
    try {
      const first = await worker.runOnce();
      assert.equal(first.frozen, 0, 'the first chunk of the resend list is members[0], who has a record');
      assert.equal(first.sent, 2);
      assert.equal(first.finished, 0);
      assert.equal(await statusOf(c.id), 'inprocess', 'lists still to freeze hold the campaign open');
      for (let i = 0; i < 10 && (await statusOf(c.id)) !== 'sent'; i++) await worker.runOnce();
    } finally {
      await worker.stop();
    }
    assert.equal(await statusOf(c.id), 'sent');
    assert.deepEqual(recipientsOf(t.smtp, c.id), [...members, ...newcomers].map((s) => s.email).sort());
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 5, failed: 0, skipped: 0 });
  });
});

describe('several workers freezing one campaign', { skip: PG_ONLY }, () => {
  test('a campaign whose chunk another worker holds is skipped, not waited for; then frozen once', async () => {
    const { list } = await listWithMembers(t.db, 3, { prefix: 'held' });
    const c = await sendableCampaign(t.db, [list.id]);
    await api('POST', `/campaigns/${c.id}/send`);
    await promoteDueCampaigns(t.ctx);
    const second = await createDatabase({ databaseUrl: t.databaseUrl, poolSize: 2 });
    try {
      await second.db.transaction(async (tx) => {
        assert.equal(await tryFreezeLock(tx, c.id), true);
        const started = Date.now();
        const pass = await freezePending(t.ctx, { chunkSize: 10, turnMs: 0, isStopping: () => false });
        assert.ok(Date.now() - started < 5000, 'not waited for');
        assert.equal(pass.unfinished, true);
        assert.deepEqual(await deliveryRows(t.db, c.id), []);
      });
    } finally {
      await second.close();
    }
    assert.equal((await onePass(10)).added, 3);
    assert.equal(await statusOf(c.id), 'inprocess');
  });

  test('two workers on separate pools freeze one big campaign together: each member once, counters right', async () => {
    const list = await createList(t.db);
    await t.db.execute(sql`
      insert into subscribers (email, unique_id, confirmed)
      select 'pair-freeze-' || g || '@example.com', md5('pair-freeze' || g), true from generate_series(1, 3000) g`);
    await t.db.execute(
      sql`insert into subscriptions (list_id, subscriber_id) select ${list.id}, id from subscribers where email like 'pair-freeze-%'`,
    );
    const c = await sendableCampaign(t.db, [list.id]);
    await api('POST', `/campaigns/${c.id}/send`);
    await promoteDueCampaigns(t.ctx);

    const second = await createDatabase({ databaseUrl: t.databaseUrl, poolSize: 3 });
    const otherCtx: AppContext = { ...t.ctx, db: second.db };
    let chunksByTwo = 0;
    const deadline = Date.now() + 60_000;
    const run = async (ctx: AppContext, count: (n: number) => void) => {
      while ((await statusOf(c.id)) === 'prepared') {
        // A freeze that stops making progress fails here instead of spinning until the runner's timeout.
        if (Date.now() > deadline) throw new Error('the audience was not frozen within 60 s');
        const pass = await freezePending(ctx, { chunkSize: 100, turnMs: 0, isStopping: () => false });
        count(pass.chunks);
      }
    };
    try {
      await Promise.all([run(t.ctx, () => {}), run(otherCtx, (n) => (chunksByTwo += n))]);
    } finally {
      await second.close();
    }
    assert.equal(await statusOf(c.id), 'inprocess');
    const [counts] = await t.db
      .execute(sql`select count(*)::int as n, count(distinct subscriber_id)::int as d from deliveries where campaign_id = ${c.id}`)
      .then((r) => (r as unknown as { rows: { n: number; d: number }[] }).rows);
    assert.deepEqual(counts, { n: 3000, d: 3000 });
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 3000, sent: 0, failed: 0, skipped: 0 });
    assert.ok(chunksByTwo > 0 && chunksByTwo < 31, `both workers froze chunks (the second ran ${chunksByTwo} of 31)`);
  });
});
