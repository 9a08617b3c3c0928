import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq, gt, sql } from 'drizzle-orm';
import { campaignAudienceSources, campaigns, deliveries, listCampaigns, sendRateWindows, subscribers } from '../../src/db/schema/index.js';
import { createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { deliveryRows, listWithMembers, mailsOf, recipientsOf, sendableCampaign, statusCounts, withWorker } from './send-fixtures.js';

/*
 * Rate limits shared through the database, and the schedule: requeue and repeat.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const send = async (id: number) => {
  const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${id}/send`, headers });
  assert.equal(res.statusCode, 200, res.body);
};
const campaignRow = async (id: number) => (await t.db.select().from(campaigns).where(eq(campaigns.id, id)))[0]!;

describe('rate limits', () => {
  test('SEND_RATE: no one-second window gets more than the limit', async () => {
    const { list, members } = await listWithMembers(t.db, 12, { prefix: 'rate' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await t.db.delete(sendRateWindows);
    const started = Date.now();
    await withWorker(t.ctx, { rate: 5, batchSize: 200 }, (w) => w.runOnce());
    const elapsed = Date.now() - started;
    assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
    const windows = await t.db.select().from(sendRateWindows).where(eq(sendRateWindows.key, 'global'));
    assert.ok(windows.length >= 3, `12 mails at 5/s need three windows, got ${windows.length}`);
    assert.ok(
      windows.every((w) => w.count <= 5),
      JSON.stringify(windows.map((w) => w.count)),
    );
    assert.equal(
      windows.reduce((sum, w) => sum + w.count, 0),
      12,
      'unused reservations are given back',
    );
    assert.ok(elapsed >= 1000, `took ${elapsed} ms`);
  });

  test('SEND_DOMAIN_RATE: a domain over its window waits for the next; other domains go on', async () => {
    const { list, members: slow } = await listWithMembers(t.db, 5, { prefix: 'dom', domain: 'slow.example' });
    const fast = [];
    for (let i = 0; i < 2; i++) {
      const s = await createSubscriber(t.db, { email: `dom-fast-${i}@fast.example`, confirmed: true });
      await subscribe(t.db, list.id, s.id);
      fast.push(s);
    }
    const barred = await createSubscriber(t.db, { email: 'dom-barred@fast.example', confirmed: true });
    await subscribe(t.db, list.id, barred.id);
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await t.db.update(subscribers).set({ blacklisted: true }).where(eq(subscribers.id, barred.id)); // skipped at send time
    await t.db.delete(sendRateWindows);
    await withWorker(t.ctx, { rate: 1000, domainRate: 3, domainWindowSeconds: 3600 }, (w) => w.runOnce());
    const got = recipientsOf(t.smtp, c.id);
    assert.equal(got.filter((r) => r.endsWith('@slow.example')).length, 3);
    assert.deepEqual(
      got.filter((r) => r.endsWith('@fast.example')),
      fast.map((s) => s.email).sort(),
    );
    const waiting = (await deliveryRows(t.db, c.id)).filter((r) => r.status === 'queued');
    assert.equal(waiting.length, 2);
    for (const row of waiting) {
      assert.equal(row.attempts, 0, 'a deferral is not an attempt');
      assert.ok(row.nextAttemptAt.getTime() > Date.now(), 'due in the next window');
      assert.ok(slow.some((s) => s.id === row.subscriberId));
    }
    assert.equal((await campaignRow(c.id)).status, 'inprocess');
    const [window] = await t.db.select().from(sendRateWindows).where(eq(sendRateWindows.key, 'domain:slow.example'));
    assert.equal(window!.count, 3);
    const global = await t.db.select().from(sendRateWindows).where(eq(sendRateWindows.key, 'global'));
    assert.equal(
      global.reduce((sum, w) => sum + w.count, 0),
      5,
      'deferred and skipped rows give their global tokens back',
    );
  });
});

describe('schedule', () => {
  test('requeue: when a run ends inside the requeue window, the campaign waits and then mails only newcomers', async () => {
    const { list, members } = await listWithMembers(t.db, 2, { prefix: 'requeue' });
    const embargo = new Date(Date.now() - 60_000);
    const c = await sendableCampaign(t.db, [list.id], {
      embargo,
      requeueInterval: 60,
      requeueUntil: new Date(Date.now() + 86_400_000),
    });
    await send(c.id);
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    const row = await campaignRow(c.id);
    assert.equal(row.status, 'submitted');
    assert.equal(row.sentAt, null);
    const wait = row.embargo.getTime() - Date.now();
    assert.ok(wait > 59 * 60_000 && wait <= 60 * 60_000, `requeued ${wait} ms ahead`);
    assert.equal(mailsOf(t.smtp, c.id).length, 2);

    const newcomer = await createSubscriber(t.db, { email: 'requeue-newcomer@example.com', confirmed: true });
    await subscribe(t.db, list.id, newcomer.id);
    await t.db
      .update(campaigns)
      .set({ embargo: new Date(Date.now() - 1000), requeueUntil: new Date(Date.now() + 30 * 60_000) })
      .where(eq(campaigns.id, c.id));
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.deepEqual(recipientsOf(t.smtp, c.id), [...members.map((m) => m.email), newcomer.email].sort());
    // The next requeue would fall after requeue_until: done.
    assert.equal((await campaignRow(c.id)).status, 'sent');
  });

  test('repeat: a sent repeating campaign schedules its next occurrence as a submitted copy', async () => {
    const { list } = await listWithMembers(t.db, 2, { prefix: 'repeat' });
    const embargo = new Date(Date.now() - 3600_000);
    embargo.setUTCMilliseconds(0);
    const c = await sendableCampaign(t.db, [list.id], {
      embargo,
      repeatInterval: 1440,
      repeatUntil: new Date(embargo.getTime() + 3 * 86_400_000),
      subject: 'Daily digest',
    });
    await send(c.id);
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.equal((await campaignRow(c.id)).status, 'sent');
    const copies = await t.db
      .select()
      .from(campaigns)
      .where(and(gt(campaigns.id, c.id), eq(campaigns.subject, 'Daily digest')));
    assert.equal(copies.length, 1);
    const copy = copies[0]!;
    assert.equal(copy.status, 'submitted');
    assert.equal(copy.embargo.getTime(), embargo.getTime() + 86_400_000);
    assert.equal(copy.repeatInterval, 1440);
    assert.notEqual(copy.uniqueId, (await campaignRow(c.id)).uniqueId);
    const links = await t.db.select().from(listCampaigns).where(eq(listCampaigns.campaignId, copy.id));
    assert.deepEqual(
      links.map((l) => l.listId),
      [list.id],
    );
    // Its lists are marked; its audience is frozen when its embargo comes.
    assert.deepEqual(await statusCounts(t.db, copy.id), {});
    assert.deepEqual(
      (await t.db.select().from(campaignAudienceSources).where(eq(campaignAudienceSources.campaignId, copy.id))).map((r) => [r.listId, r.frozenAt]),
      [[list.id, null]],
    );
    // Not due yet: nothing more is sent.
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.deepEqual(mailsOf(t.smtp, copy.id), []);

    // The last occurrence inside repeat_until makes no further copy.
    await t.db
      .update(campaigns)
      .set({ embargo: new Date(Date.now() - 1000), repeatUntil: new Date(Date.now() + 3600_000) })
      .where(eq(campaigns.id, copy.id));
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.equal(mailsOf(t.smtp, copy.id).length, 2);
    const later = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(campaigns)
      .where(and(gt(campaigns.id, copy.id), eq(campaigns.subject, 'Daily digest')));
    assert.equal(later[0]!.n, 0);
    const stillQueued = await t.db
      .select()
      .from(deliveries)
      .where(and(eq(deliveries.campaignId, copy.id), eq(deliveries.status, 'queued')));
    assert.deepEqual(stillQueued, []);
  });
});
