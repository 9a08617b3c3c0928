import type { SendingConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { blacklistedAmong } from '../subscription/index.js';
import { pauseCampaign } from './campaign-run.js';
import { CompileError, loadRecipients, RecipientError, type CompiledCampaign, type RecipientData } from './compose/index.js';
import * as ledger from './delivery.repository.js';
import type { ClaimedDelivery, Outcome } from './delivery.repository.js';
import { domainKey, domainOf, giveBack, GLOBAL_KEY, takeTokens, type Grant } from '../shared/rate-limit.js';
import type { Semaphore } from './semaphore.js';
import { SendFailure } from './transport.js';
import { deliveriesTotal } from '../shared/metrics.js';
import type { RelayState } from './relay-state.js';

/*
 * One batch of one campaign, start to end: reserve rate, claim under a lease, load the recipients in bulk, skip the
 * ones that may no longer be mailed, render and send with bounded concurrency, and record every outcome in one
 * statement. Rows the batch could not send (stopping, a domain over its window) go back to the queue unsent.
 */

export interface BatchEnv {
  readonly ctx: AppContext;
  readonly workerId: string;
  readonly settings: SendingConfig;
  /** Messages in flight across the whole worker. */
  readonly slots: Semaphore;
  isStopping(): boolean;
  compiled(campaignId: number): Promise<CompiledCampaign>;
  /** Each campaign's run of consecutive failures as last recorded by this worker (shared truth is in the database). */
  readonly failureRuns: Map<number, number>;
  /** Whether the relay can be used, and when to try it again (relay-state.ts). */
  readonly relay: RelayState;
}

export interface BatchResult {
  readonly claimed: number;
  readonly sent: number;
  /** Set when the global rate window is used up: come back then. */
  readonly waitUntil?: Date;
  /** The campaign left the sender during this batch (suspended). */
  readonly stopped?: boolean;
}

const MAX_RETRY_DELAY_MS = 6 * 3600_000;
const SKIP = {
  gone: 'Skipped: the subscriber no longer exists.',
  blacklisted: 'Skipped: the address was blacklisted after the campaign was submitted.',
  disabled: 'Skipped: the subscriber is disabled.',
  unconfirmed: 'Skipped: the subscriber is no longer confirmed.',
  invalid: 'Skipped: not a valid e-mail address.',
} as const;
// Deliberately loose: anything a mail server could route. The server has the last word (5xx → failed).
const ROUTABLE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function runBatch(env: BatchEnv, campaignId: number): Promise<BatchResult> {
  const { ctx, settings, workerId } = env;
  // The relay could not be used: nothing is claimed until the next probe is due.
  const retryAt = env.relay.waitUntil();
  if (retryAt) return { claimed: 0, sent: 0, waitUntil: retryAt };
  // While it is down, one message probes the relay rather than a whole batch.
  let want = env.relay.probing() ? 1 : settings.batchSize;
  const global =
    settings.rate > 0 ? (await takeTokens(ctx.db, [{ key: GLOBAL_KEY, windowSeconds: 1, want, limit: settings.rate }])).get(GLOBAL_KEY)! : null;
  if (global) {
    if (global.granted === 0) return { claimed: 0, sent: 0, waitUntil: global.windowEnd };
    want = global.granted;
  }
  const claimed = await ledger.claimBatch(ctx.db, campaignId, workerId, want, settings.leaseSeconds);
  if (global) await giveBack(ctx.db, global, want - claimed.length);
  if (claimed.length === 0) return { claimed: 0, sent: 0 };

  const held = new Set(claimed.map((c) => c.id));
  const heartbeat = setInterval(
    () => {
      ledger.extendLease(ctx.db, [...held], workerId, settings.leaseSeconds).catch((err: unknown) => ctx.log.warn({ err }, 'lease renewal failed'));
    },
    Math.max(1000, (settings.leaseSeconds * 1000) / 3),
  );
  heartbeat.unref();
  try {
    return await sendClaimed(env, campaignId, claimed, held, global);
  } catch (err) {
    // Whatever went wrong, the rows must not sit under a lease until it runs out.
    await ledger.releaseClaimed(ctx.db, [...held], workerId).catch(() => {});
    throw err;
  } finally {
    clearInterval(heartbeat);
  }
}

/** `grant`: the global rate tokens the batch reserved; what it does not send goes back, so only messages sent count. */
async function sendClaimed(
  env: BatchEnv,
  campaignId: number,
  claimed: ClaimedDelivery[],
  held: Set<number>,
  grant: Grant | null,
): Promise<BatchResult> {
  const { ctx, settings, workerId } = env;
  const startedAt = Date.now();
  const compiled = await compileOrSuspend(env, campaignId, claimed.length, held, grant);
  if (!compiled) return { claimed: claimed.length, sent: 0, stopped: true };

  const { skipped, sendable } = await screenRecipients(ctx, claimed);
  const deferred = await overDomainLimits(env, sendable);
  const deferredIds = new Set(deferred.rows);
  const sending = await sendWithinSlots(
    env,
    campaignId,
    compiled,
    sendable.filter((s) => !deferredIds.has(s.delivery.id)),
  );
  const outcomes = [...skipped, ...sending.outcomes];
  // Rows the relay could not take (down, refusing sessions) go back with no attempt spent.
  const unsent = sending.unsent;

  const { tail, hadSuccess } = failureTail(outcomes);
  const recorded = await withOneRetry(() => ledger.recordOutcomes(ctx.db, campaignId, workerId, outcomes, tail, hadSuccess));
  countOutcomes(outcomes);
  await ledger.releaseClaimed(ctx.db, unsent, workerId);
  await ledger.releaseClaimed(ctx.db, deferred.rows, workerId, deferred.until);
  held.clear();
  // Skipped, deferred to a domain's next window, or never tried (stopping): none of them used the global rate.
  if (grant) await giveBack(ctx.db, grant, claimed.length - sendable.length + deferred.rows.length + unsent.length);
  env.failureRuns.set(campaignId, recorded.consecutiveFailures);
  if (sending.relayDown !== null) {
    return { claimed: claimed.length, sent: recorded.sent, waitUntil: await env.relay.down(campaignId, sending.relayDown) };
  }
  if (sending.outcomes.length > 0) await env.relay.up(startedAt);

  if (settings.failurePause > 0 && recorded.consecutiveFailures >= settings.failurePause) {
    await suspendForFailures(ctx, campaignId, outcomes, recorded.consecutiveFailures);
    return { claimed: claimed.length, sent: recorded.sent, stopped: true };
  }
  ctx.log.debug({ campaignId, ...recorded, released: unsent.length + deferred.rows.length }, 'batch recorded');
  return { claimed: claimed.length, sent: recorded.sent };
}

/** mailroom_deliveries_total by outcome, once per status of the batch; a delivery put back in the queue is a retry. */
function countOutcomes(outcomes: readonly Outcome[]): void {
  const counts = { sent: 0, failed: 0, skipped: 0, queued: 0 };
  for (const outcome of outcomes) counts[outcome.status]++;
  for (const [status, n] of Object.entries(counts)) if (n > 0) deliveriesTotal.inc({ outcome: status === 'queued' ? 'retry' : status }, n);
}

/**
 * The compiled campaign. When compiling fails the claimed rows go back to the queue and the global rate tokens are
 * returned first; then content that cannot be compiled suspends the campaign (null), any other error is thrown.
 */
async function compileOrSuspend(
  env: BatchEnv,
  campaignId: number,
  claimedCount: number,
  held: Set<number>,
  grant: Grant | null,
): Promise<CompiledCampaign | null> {
  const { ctx, workerId } = env;
  try {
    return await env.compiled(campaignId);
  } catch (err) {
    await ledger.releaseClaimed(ctx.db, [...held], workerId);
    held.clear();
    if (grant) await giveBack(ctx.db, grant, claimedCount);
    // A database hiccup is retried by the loop; content that cannot be composed suspends the campaign, as phpList
    // does when precaching fails (sending half-built mail would be worse).
    if (!(err instanceof CompileError)) throw err;
    const message = (err as Error).message;
    await pauseCampaign(ctx, campaignId, `Suspended: the campaign could not be prepared for sending: ${message}`, 'content could not be prepared');
    return null;
  }
}

interface Sendable {
  readonly delivery: ClaimedDelivery;
  readonly recipient: RecipientData;
}

/**
 * The claimed deliveries split into those that may be sent and those settled as skipped (with the reason), judged
 * on the subscriber as they are now, not as at submission: loaded in one query, the blacklist checked in another.
 */
async function screenRecipients(ctx: AppContext, claimed: ClaimedDelivery[]): Promise<{ skipped: Outcome[]; sendable: Sendable[] }> {
  const recipients = new Map(
    (
      await loadRecipients(
        ctx,
        claimed.map((c) => c.subscriberId),
      )
    ).map((r) => [r.subscriberId, r]),
  );
  const listed = await blacklistedAmong(
    ctx.db,
    [...recipients.values()].map((r) => r.email),
  );
  const skipped: Outcome[] = [];
  const sendable: Sendable[] = [];
  for (const delivery of claimed) {
    const recipient = recipients.get(delivery.subscriberId);
    const reason = skipReason(recipient, listed);
    if (reason) skipped.push(settle(delivery, 'skipped', reason, delivery.attempts));
    else sendable.push({ delivery, recipient: recipient! });
  }
  return { skipped, sendable };
}

/**
 * Sends each row once a worker-wide slot is free, outcomes in the order they finish. Rows whose turn comes while the
 * worker is stopping, or after this campaign's run of failures reached the pause threshold (no use burning the rest
 * of the list), are not tried: they come back in `unsent`.
 */
async function sendWithinSlots(
  env: BatchEnv,
  campaignId: number,
  compiled: CompiledCampaign,
  rows: readonly Sendable[],
): Promise<{ outcomes: Outcome[]; unsent: number[]; relayDown: string | null }> {
  const { failurePause } = env.settings;
  const outcomes: Outcome[] = [];
  const unsent: number[] = [];
  let relayDown: string | null = null;
  let run = env.failureRuns.get(campaignId) ?? 0;
  let abort = false;
  await Promise.all(
    rows.map(async ({ delivery, recipient }) => {
      await env.slots.acquire();
      try {
        if (abort || relayDown !== null || env.isStopping()) {
          unsent.push(delivery.id);
          return;
        }
        const outcome = await sendOne(env, compiled, delivery, recipient);
        if ('relay' in outcome) {
          // Not the recipient's failure: back to the queue as it was, and the rest of the batch waits for the relay.
          relayDown ??= outcome.relay;
          unsent.push(delivery.id);
          return;
        }
        outcomes.push(outcome);
        if (outcome.status === 'sent') run = 0;
        else if (++run >= failurePause && failurePause > 0) abort = true; // stop burning the list
      } finally {
        env.slots.release();
      }
    }),
  );
  return { outcomes, unsent, relayDown };
}

/** The failures after the batch's last success (skips count neither way), as `recordOutcomes` takes them. */
function failureTail(outcomes: readonly Outcome[]): { tail: number; hadSuccess: boolean } {
  let tail = 0;
  let hadSuccess = false;
  for (const o of outcomes) {
    if (o.status === 'sent') {
      tail = 0;
      hadSuccess = true;
    } else if (o.status !== 'skipped') tail++;
  }
  return { tail, hadSuccess };
}

/** Suspends the campaign after a run of failures, naming the last answer (and its reply code) so the cause is seen. */
async function suspendForFailures(ctx: AppContext, campaignId: number, outcomes: readonly Outcome[], failures: number): Promise<void> {
  const last = [...outcomes].reverse().find((o) => o.status === 'failed' || o.status === 'queued');
  const code = /^\d{3}(?:[ -]\d\.\d{1,3}\.\d{1,3})?/.exec(last?.response ?? '')?.[0] ?? 'no reply code';
  await pauseCampaign(
    ctx,
    campaignId,
    `Suspended after ${failures} consecutive failed deliveries; the last answer was: ${last?.response ?? 'none'}`,
    `${failures} consecutive failed deliveries (last: ${code})`,
  );
}

function skipReason(recipient: RecipientData | undefined, listed: Set<string>): string | null {
  if (!recipient) return SKIP.gone;
  if (recipient.blacklisted || listed.has(recipient.email.toLowerCase())) return SKIP.blacklisted;
  if (recipient.disabled) return SKIP.disabled;
  if (!recipient.confirmed) return SKIP.unconfirmed;
  if (!ROUTABLE.test(recipient.email)) return SKIP.invalid;
  return null;
}

async function sendOne(
  env: BatchEnv,
  compiled: CompiledCampaign,
  delivery: ClaimedDelivery,
  recipient: RecipientData,
): Promise<Outcome | { relay: string }> {
  const attempts = delivery.attempts + 1;
  let rendered;
  try {
    rendered = compiled.render(recipient, delivery.id);
  } catch (err) {
    // An address that cannot go into a header will not get better by trying again.
    if (err instanceof RecipientError) return settle(delivery, 'skipped', `${SKIP.invalid} ${err.message}`, delivery.attempts);
    return settle(delivery, 'failed', `Could not build the message: ${(err as Error).message}`, attempts);
  }
  try {
    const result = await env.ctx.transport.send(rendered.message);
    return { ...settle(delivery, 'sent', result.response, attempts), format: rendered.format, messageId: rendered.messageId };
  } catch (err) {
    const failure = err instanceof SendFailure ? err : new SendFailure(String(err), false, (err as Error)?.message ?? String(err));
    if (failure.relay !== null) return { relay: failure.relay };
    if (failure.permanent || attempts >= env.settings.maxAttempts) {
      return { ...settle(delivery, 'failed', failure.response, attempts), messageId: rendered.messageId };
    }
    const delay = Math.min(MAX_RETRY_DELAY_MS, env.settings.retryDelaySeconds * 1000 * 2 ** (attempts - 1));
    return { ...settle(delivery, 'queued', failure.response, attempts), nextAttemptAt: new Date(Date.now() + delay) };
  }
}

function settle(delivery: ClaimedDelivery, status: Outcome['status'], response: string, attempts: number): Outcome {
  return { id: delivery.id, status, attempts, response: response.slice(0, 2000), format: null, messageId: null, nextAttemptAt: null };
}

/**
 * Reserves each recipient domain's share of its window for this batch (one statement for all domains). Rows beyond
 * a domain's share wait for its next window.
 */
async function overDomainLimits(env: BatchEnv, sendable: readonly Sendable[]): Promise<{ rows: number[]; until: Date | null }> {
  const { domainRate, domainWindowSeconds } = env.settings;
  if (domainRate <= 0 || sendable.length === 0) return { rows: [], until: null };
  const byDomain = new Map<string, number[]>();
  for (const s of sendable) {
    const key = domainKey(domainOf(s.recipient.email));
    const ids = byDomain.get(key);
    if (ids) ids.push(s.delivery.id);
    else byDomain.set(key, [s.delivery.id]);
  }
  const grants = await takeTokens(
    env.ctx.db,
    [...byDomain].map(([key, ids]) => ({ key, windowSeconds: domainWindowSeconds, want: ids.length, limit: domainRate })),
  );
  const rows: number[] = [];
  let until: Date | null = null;
  for (const [key, ids] of byDomain) {
    const grant = grants.get(key)!;
    if (grant.granted >= ids.length) continue;
    rows.push(...ids.slice(grant.granted));
    if (!until || grant.windowEnd > until) until = grant.windowEnd;
  }
  return { rows, until };
}

async function withOneRetry<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch {
    await new Promise((r) => setTimeout(r, 500));
    return fn();
  }
}
