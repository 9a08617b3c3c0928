import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { attachments, campaigns, campaignSendStates, deliveries, subscribers } from '../../src/db/schema/index.js';
import { startWorker } from '../../src/sending/worker.js';
import { atom, startTestApp, type TestApp } from '../helper.js';
import {
  countersOf,
  deliveryRows,
  freezeAudiences,
  listWithMembers,
  mailsOf,
  parkOtherCampaigns,
  recipientsOf,
  sendableCampaign,
  statusCounts,
  withWorker,
} from './send-fixtures.js';

/*
 * The worker end to end: records claimed, mails over SMTP into the sink, outcomes recorded, the campaign moved
 * along reference §7.1.
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
  return res.json();
};
const campaignView = async (id: number) => (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}`, headers })).json();
const patchStatus = async (id: number, status: string) => {
  const res = await t.inject({ method: 'PATCH', url: `/api/v2/campaigns/${id}/status`, headers, payload: { status } });
  assert.equal(res.statusCode, 200, res.body);
};

describe('sending a campaign', () => {
  test('every member gets one mail; the campaign ends sent with its counters; records carry the outcome', async () => {
    const { list, members } = await listWithMembers(t.db, 12, { prefix: 'e2e' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    const summary = await withWorker(t.ctx, { batchSize: 5 }, (w) => w.runOnce());
    assert.deepEqual(summary, { started: 1, frozen: 12, batches: 3, sent: 12, finished: 1 });

    assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
    const rows = await deliveryRows(t.db, c.id);
    for (const row of rows) {
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 1);
      assert.match(row.lastResponse!, /^250 /);
      assert.equal(row.format, 'html');
      assert.equal(row.leaseUntil, null);
      assert.equal(row.workerId, null);
      assert.ok(row.sentAt);
      const mail = mailsOf(t.smtp, c.id).find((m) => m.parsed.headers.get('x-mailroom-delivery') === String(row.id));
      assert.ok(mail, `a mail for delivery ${row.id}`);
      assert.match(row.messageId!, new RegExp(`^<c${c.id}\\.s${row.subscriberId}\\.[0-9a-f]{32}@`));
      assert.equal(mail.parsed.messageId, row.messageId);
    }
    const view = await campaignView(c.id);
    assert.deepEqual(view.message_metadata, {
      status: 'sent',
      processed: 12,
      views: 0,
      bounce_count: 0,
      entered: atom(view.message_metadata.entered),
      sent: atom(view.message_metadata.sent),
      send_start: atom(view.message_metadata.send_start),
    });
    assert.equal(view.message_format.as_html, 12);
    assert.equal(view.message_format.as_text, 0);
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 12, failed: 0, skipped: 0 });
  });

  test('subscribers blacklisted, disabled or unconfirmed after the freeze are skipped, with the reason', async () => {
    const { list, members } = await listWithMembers(t.db, 4, { prefix: 'late-skip' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await freezeAudiences(t.ctx);
    await t.db.update(subscribers).set({ blacklisted: true }).where(eq(subscribers.id, members[0]!.id));
    await t.db.update(subscribers).set({ disabled: true }).where(eq(subscribers.id, members[1]!.id));
    await t.db.update(subscribers).set({ confirmed: false }).where(eq(subscribers.id, members[2]!.id));
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.deepEqual(recipientsOf(t.smtp, c.id), [members[3]!.email]);
    const rows = await deliveryRows(t.db, c.id);
    assert.deepEqual(
      rows.map((r) => [r.status, r.lastResponse]),
      [
        ['skipped', 'Skipped: the address was blacklisted after the campaign was submitted.'],
        ['skipped', 'Skipped: the subscriber is disabled.'],
        ['skipped', 'Skipped: the subscriber is no longer confirmed.'],
        ['sent', rows[3]!.lastResponse],
      ],
    );
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 1, failed: 0, skipped: 3 });
    assert.equal((await campaignView(c.id)).message_metadata.status, 'sent');
  });

  test('a campaign whose embargo is in the future waits for it', async () => {
    const { list, members } = await listWithMembers(t.db, 2, { prefix: 'embargo' });
    const c = await sendableCampaign(t.db, [list.id], { embargo: new Date(Date.now() + 3600_000) });
    await send(c.id);
    await withWorker(t.ctx, {}, async (w) => {
      assert.deepEqual(await w.runOnce(), { started: 0, frozen: 0, batches: 0, sent: 0, finished: 0 });
      assert.equal((await campaignView(c.id)).message_metadata.status, 'submitted');
      assert.deepEqual(mailsOf(t.smtp, c.id), []);
      await t.db
        .update(campaigns)
        .set({ embargo: new Date(Date.now() - 1000) })
        .where(eq(campaigns.id, c.id));
      await w.runOnce();
    });
    assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
    assert.equal((await campaignView(c.id)).message_metadata.status, 'sent');
  });

  test('suspending pauses between batches; submitting again resumes where it stopped', async () => {
    const { list, members } = await listWithMembers(t.db, 10, { prefix: 'pause' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await withWorker(t.ctx, { batchSize: 4, lanes: 1, turnMs: 0 }, async (w) => {
      await w.runOnce(); // one batch, then the campaign's turn is over
      assert.equal(mailsOf(t.smtp, c.id).length, 4);
      await patchStatus(c.id, 'suspended');
      assert.deepEqual(await w.runOnce(), { started: 0, frozen: 0, batches: 0, sent: 0, finished: 0 });
      assert.equal(mailsOf(t.smtp, c.id).length, 4);
      await patchStatus(c.id, 'submitted');
      for (let i = 0; i < 3; i++) await w.runOnce();
    });
    assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
    assert.equal((await campaignView(c.id)).message_metadata.status, 'sent');
  });

  test('a campaign with nobody to send to ends sent at once', async () => {
    const { list, members } = await listWithMembers(t.db, 1, { prefix: 'nobody' });
    await t.db.update(subscribers).set({ confirmed: false }).where(eq(subscribers.id, members[0]!.id));
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await freezeAudiences(t.ctx);
    assert.deepEqual(await deliveryRows(t.db, c.id), []);
    assert.equal((await campaignView(c.id)).message_metadata.status, 'inprocess');
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.equal((await campaignView(c.id)).message_metadata.status, 'sent');
  });
});

describe('failures', () => {
  test('a campaign that cannot be composed is suspended with the reason; its records stay queued', async () => {
    const { list } = await listWithMembers(t.db, 2, { prefix: 'broken' });
    const c = await sendableCampaign(t.db, [list.id]);
    await t.db
      .insert(attachments)
      .values({ campaignId: c.id, filename: 'gone.pdf', mimeType: 'application/pdf', size: 10, contentHash: 'f'.repeat(64) });
    await send(c.id);
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.equal((await campaignView(c.id)).message_metadata.status, 'suspended');
    const [state] = await t.db.select().from(campaignSendStates).where(eq(campaignSendStates.campaignId, c.id));
    assert.match(state!.pausedReason!, /^Suspended: the campaign could not be prepared for sending: /);
    assert.deepEqual(
      (await deliveryRows(t.db, c.id)).map((r) => [r.status, r.attempts]),
      [
        ['queued', 0],
        ['queued', 0],
      ],
    );
    assert.deepEqual(mailsOf(t.smtp, c.id), []);
  });

  test('temporary failures (4xx) are retried; after SEND_MAX_ATTEMPTS the record fails with the reply', async () => {
    const { list, members } = await listWithMembers(t.db, 5, { prefix: 'soft' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await parkOtherCampaigns(t.db, c.id);
    t.smtp.failNext(2, 451, 'Try again later');
    await withWorker(t.ctx, { concurrency: 1 }, (w) => w.runOnce());
    assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
    const rows = await deliveryRows(t.db, c.id);
    assert.deepEqual(rows.map((r) => r.attempts).sort(), [1, 1, 1, 2, 2]);
    assert.ok(rows.every((r) => r.status === 'sent' && /^250 /.test(r.lastResponse!)));

    const { list: one } = await listWithMembers(t.db, 1, { prefix: 'soft-max' });
    const d = await sendableCampaign(t.db, [one.id]);
    await send(d.id);
    await parkOtherCampaigns(t.db, d.id);
    t.smtp.failNext(2, 451, 'Mailbox busy');
    await withWorker(t.ctx, { maxAttempts: 2, failurePause: 0 }, (w) => w.runOnce());
    const [failed] = await deliveryRows(t.db, d.id);
    assert.equal(failed!.status, 'failed');
    assert.equal(failed!.attempts, 2);
    assert.match(failed!.lastResponse!, /451.*Mailbox busy/);
    assert.equal((await campaignView(d.id)).message_metadata.status, 'sent');
    assert.deepEqual(await countersOf(t.db, d.id), { queued: 0, sent: 0, failed: 1, skipped: 0 });
  });

  test('a temporary failure waits its back-off before the next attempt', async () => {
    const { list } = await listWithMembers(t.db, 1, { prefix: 'backoff' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await parkOtherCampaigns(t.db, c.id);
    t.smtp.failNext(1, 452, 'Too busy');
    const before = Date.now();
    await withWorker(t.ctx, { retryDelaySeconds: 60 }, (w) => w.runOnce());
    const [row] = await deliveryRows(t.db, c.id);
    assert.equal(row!.status, 'queued');
    assert.equal(row!.attempts, 1);
    assert.match(row!.lastResponse!, /^452 .*Too busy/);
    const wait = row!.nextAttemptAt.getTime() - before;
    assert.ok(wait >= 59_000 && wait <= 62_000, `next attempt in ${wait} ms`);
    assert.equal((await campaignView(c.id)).message_metadata.status, 'inprocess');
    assert.deepEqual(mailsOf(t.smtp, c.id), []);
  });

  test('permanent failures (5xx) are recorded with the reply and not retried', async () => {
    const { list } = await listWithMembers(t.db, 3, { prefix: 'hard' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await parkOtherCampaigns(t.db, c.id);
    t.smtp.failNext(1, 550, 'No such user');
    await withWorker(t.ctx, { concurrency: 1 }, (w) => w.runOnce());
    assert.equal(mailsOf(t.smtp, c.id).length, 2);
    assert.deepEqual(await statusCounts(t.db, c.id), { sent: 2, failed: 1 });
    const failed = (await deliveryRows(t.db, c.id)).find((r) => r.status === 'failed')!;
    assert.equal(failed.attempts, 1);
    assert.match(failed.lastResponse!, /^550 .*No such user/);
    assert.equal((await campaignView(c.id)).message_metadata.status, 'sent');
  });

  test('a run of failures suspends the campaign instead of burning the list; resuming continues', async () => {
    const { list, members } = await listWithMembers(t.db, 8, { prefix: 'run' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await parkOtherCampaigns(t.db, c.id);
    t.smtp.failNext(3, 554, 'Relay access denied');
    await withWorker(t.ctx, { failurePause: 3, concurrency: 1, lanes: 1 }, (w) => w.runOnce());
    assert.equal((await campaignView(c.id)).message_metadata.status, 'suspended');
    assert.deepEqual(await statusCounts(t.db, c.id), { failed: 3, queued: 5 });
    const [state] = await t.db.select().from(campaignSendStates).where(eq(campaignSendStates.campaignId, c.id));
    assert.match(state!.pausedReason!, /^Suspended after 3 consecutive failed deliveries; the last answer was: 554 .*Relay access denied/);
    const shown = (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}/stats`, headers })).json().sender;
    assert.deepEqual(shown, { consecutive_failures: 3, paused_reason: state!.pausedReason, paused_at: shown.paused_at, relay_unavailable: null });
    assert.match(shown.paused_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    assert.deepEqual(mailsOf(t.smtp, c.id), []);

    await patchStatus(c.id, 'submitted');
    await withWorker(t.ctx, { failurePause: 3 }, (w) => w.runOnce());
    assert.equal((await campaignView(c.id)).message_metadata.status, 'sent');
    assert.equal(mailsOf(t.smtp, c.id).length, 5);
    const [cleared] = await t.db.select().from(campaignSendStates).where(eq(campaignSendStates.campaignId, c.id));
    assert.equal(cleared!.pausedReason, null);
    assert.equal(cleared!.consecutiveFailures, 0);
    assert.deepEqual((await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}/stats`, headers })).json().sender, {
      consecutive_failures: 0,
      paused_reason: null,
      paused_at: null,
      relay_unavailable: null,
    });
    assert.equal(new Set(recipientsOf(t.smtp, c.id)).size, 5);
    assert.ok(recipientsOf(t.smtp, c.id).every((r) => members.some((m) => m.email === r)));
  });
});

describe('leases', () => {
  test("a dead worker's batch is queued again when its lease expires and sent exactly once", async () => {
    const { list, members } = await listWithMembers(t.db, 6, { prefix: 'lease' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    await freezeAudiences(t.ctx);
    const rows = await deliveryRows(t.db, c.id);
    const deadIds = rows.slice(0, 3).map((r) => r.id);
    const liveIds = rows.slice(3, 4).map((r) => r.id);
    // A crashed worker: claimed, lease already over. A live one: claimed, lease running.
    await t.db
      .update(deliveries)
      .set({ status: 'sending', workerId: 'dead-worker', leaseUntil: new Date(Date.now() - 1000) })
      .where(inArray(deliveries.id, deadIds));
    await t.db
      .update(deliveries)
      .set({ status: 'sending', workerId: 'live-worker', leaseUntil: new Date(Date.now() + 600_000) })
      .where(inArray(deliveries.id, liveIds));
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    const expected = members
      .filter((m) => m.id !== rows[3]!.subscriberId)
      .map((m) => m.email)
      .sort();
    assert.deepEqual(recipientsOf(t.smtp, c.id), expected);
    assert.equal((await campaignView(c.id)).message_metadata.status, 'inprocess'); // the live worker's row is pending
    const [live] = await t.db.select().from(deliveries).where(eq(deliveries.id, liveIds[0]!));
    assert.equal(live!.status, 'sending');
    assert.equal(live!.workerId, 'live-worker');

    // The live worker dies too: once its lease runs out, the row is sent, once.
    await t.db
      .update(deliveries)
      .set({ leaseUntil: new Date(Date.now() - 1) })
      .where(eq(deliveries.id, liveIds[0]!));
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
    assert.equal((await campaignView(c.id)).message_metadata.status, 'sent');
  });

  test('stopping hands claimed but unsent rows back to the queue', async () => {
    const { list } = await listWithMembers(t.db, 30, { prefix: 'stop' });
    const c = await sendableCampaign(t.db, [list.id]);
    await send(c.id);
    const worker = startWorker(t.ctx, { loop: true, pollMs: 20, concurrency: 1, lanes: 1, batchSize: 30 });
    await t.smtp.waitFor(t.smtp.messages.length + 2);
    await worker.stop();
    const counts = await statusCounts(t.db, c.id);
    assert.equal(counts.sending, undefined, 'nothing left under a lease');
    assert.equal(counts.sent, mailsOf(t.smtp, c.id).length);
    assert.ok((counts.queued ?? 0) > 0, 'the rest queued again');
    assert.equal(counts.sent + counts.queued!, 30);
    const held = await t.db
      .select()
      .from(deliveries)
      .where(and(eq(deliveries.campaignId, c.id), sql`${deliveries.workerId} is not null`));
    assert.deepEqual(held, []);
  });
});
