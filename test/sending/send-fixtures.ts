import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../src/context.js';
import type { Db } from '../../src/db/client.js';
import { FREEZE_CHUNK, freezePending } from '../../src/sending/audience-freeze.js';
import { promoteDueCampaigns } from '../../src/sending/campaign-run.js';
import { startWorker, type WorkerOptions } from '../../src/sending/worker.js';
import { campaignCounters, campaigns, deliveries, listCampaigns } from '../../src/db/schema/index.js';
import { createCampaign, createList, createSubscriber, subscribe } from '../factories.js';
import type { ReceivedMail, SmtpSink } from '../smtp-sink.js';

/*
 * Scenes for the sender's tests: campaigns with an audience, and reading back what the sink received.
 */

let counter = 0;

/** A list with `count` confirmed members (addresses `<prefix>-<n>@<domain>`), or with the given subscribers. */
export async function listWithMembers(db: Db, count: number, options: { domain?: string; prefix?: string } = {}) {
  const list = await createList(db);
  const members = [];
  const prefix = options.prefix ?? `m${++counter}x${Date.now().toString(36)}`;
  for (let i = 0; i < count; i++) {
    const s = await createSubscriber(db, { email: `${prefix}-${i}@${options.domain ?? 'example.com'}`, confirmed: true });
    await subscribe(db, list.id, s.id);
    members.push(s);
  }
  return { list, members };
}

/** A draft campaign ready to submit, linked to `listIds`. */
export async function sendableCampaign(db: Db, listIds: readonly number[], values: Parameters<typeof createCampaign>[1] = {}) {
  const campaign = await createCampaign(db, {
    subject: 'News of the week',
    body: '<p>Hi there, this is the news.</p>',
    fromField: 'News <news@example.com>',
    sendFormat: 'html',
    embargo: new Date(Date.now() - 60_000),
    ...values,
  });
  for (const listId of listIds) await db.insert(listCampaigns).values({ campaignId: campaign.id, listId });
  return campaign;
}

/** Mails of one campaign the sink received, by the campaign header every campaign mail carries. */
export function mailsOf(sink: SmtpSink, campaignId: number): ReceivedMail[] {
  return sink.messages.filter((m) => m.parsed.headers.get('x-mailroom-campaign') === String(campaignId));
}

/** Envelope recipients of those mails, sorted. */
export function recipientsOf(sink: SmtpSink, campaignId: number): string[] {
  return mailsOf(sink, campaignId)
    .flatMap((m) => m.envelope.to)
    .sort();
}

export async function deliveryRows(db: Db, campaignId: number) {
  return db.select().from(deliveries).where(eq(deliveries.campaignId, campaignId)).orderBy(deliveries.id);
}

export async function statusCounts(db: Db, campaignId: number): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: deliveries.status, n: sql<number>`count(*)::int` })
    .from(deliveries)
    .where(eq(deliveries.campaignId, campaignId))
    .groupBy(deliveries.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

export async function countersOf(db: Db, campaignId: number) {
  const [row] = await db
    .select({
      queued: campaignCounters.queued,
      sent: campaignCounters.sent,
      failed: campaignCounters.failed,
      skipped: campaignCounters.skipped,
    })
    .from(campaignCounters)
    .where(eq(campaignCounters.campaignId, campaignId));
  return row;
}

/**
 * Suspends every campaign on its way except `keep`, so that a worker pass (which serves every due campaign) only
 * sends the test's own — needed where the sink is told to fail its next few recipients.
 */
export async function parkOtherCampaigns(db: Db, ...keep: number[]) {
  await db
    .update(campaigns)
    .set({ status: 'suspended' })
    .where(and(inArray(campaigns.status, ['submitted', 'prepared', 'inprocess']), notInArray(campaigns.id, keep)));
}

/**
 * The worker's first two steps and not the sending: due campaigns are taken up (submitted → prepared) and their
 * audiences frozen to the end (→ inprocess). For tests that look at the records before anything is sent.
 */
export async function freezeAudiences(ctx: AppContext, chunkSize = FREEZE_CHUNK) {
  const promoted = await promoteDueCampaigns(ctx);
  const frozen = await freezePending(ctx, { chunkSize, turnMs: 60_000, isStopping: () => false });
  return { promoted, ...frozen };
}

/** A worker driven by the test (no loop), retrying temporary failures at once unless told otherwise; stopped after. */
export async function withWorker<T>(ctx: AppContext, options: WorkerOptions, fn: (worker: ReturnType<typeof startWorker>) => Promise<T>): Promise<T> {
  const worker = startWorker(ctx, { loop: false, retryDelaySeconds: 0, ...options });
  try {
    return await fn(worker);
  } finally {
    await worker.stop();
  }
}
