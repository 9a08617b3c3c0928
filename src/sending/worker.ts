import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { SendingConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { FREEZE_CHUNK, FREEZE_CHUNK_PGLITE, freezePending } from './audience-freeze.js';
import { activeCampaigns, consecutiveFailures } from './campaign-run.repository.js';
import { finishIfDone, promoteDueCampaigns } from './campaign-run.js';
import { compileCampaign, type CompiledCampaign } from './compose/index.js';
import { requeueExpiredLeases, requeueOrphans } from './delivery.repository.js';
import { deleteOldWindows } from '../shared/rate-limit.js';
import { relayState } from './relay-state.js';
import { Semaphore } from './semaphore.js';
import { runBatch, type BatchEnv } from './worker-batch.js';

/*
 * The campaign sender. Any number of workers (inside the API processes and/or `npm run worker`) share one database
 * and never send a record twice: batches are claimed with FOR UPDATE SKIP LOCKED under a lease, and outcomes are
 * written only for rows the worker still holds. Each pass: hand back expired leases, take up due campaigns (submitted
 * → prepared), freeze audiences for a while (prepared → inprocess once done), then drain each campaign being sent
 * for a while (several batches in flight, so database round trips overlap SMTP), then see whether it is finished.
 */

export interface WorkerOptions extends Partial<SendingConfig> {
  /** Recorded on claimed rows; default host:pid:random. */
  readonly workerId?: string;
  /** Run the polling loop (default true). Off: nothing happens until runOnce() is called (tests). */
  readonly loop?: boolean;
  /** Batches in flight at once (default 3). */
  readonly lanes?: number;
  /** How long one campaign is drained, or frozen, before the others get their turn (default 5 s). */
  readonly turnMs?: number;
  /** Members per freeze statement (default 50,000; 10,000 on PGlite). */
  readonly freezeChunk?: number;
  /**
   * At the first pass, queue again every row in flight held by no worker of this process, lease or not. Default: on
   * embedded PGlite with the loop running (a process of its own owns that database, so such rows were left by a
   * process that died); tests that play other workers in one PGlite turn it off by not looping.
   */
  readonly reclaimOnStart?: boolean;
}

export interface RunSummary {
  /** Campaigns taken up (submitted → prepared). */
  readonly started: number;
  /** Delivery records added by freezing audiences. */
  readonly frozen: number;
  readonly batches: number;
  readonly sent: number;
  readonly finished: number;
}

export interface SendWorker {
  readonly id: string;
  /** One pass over due and active campaigns. */
  runOnce(): Promise<RunSummary>;
  /** Finishes the sends in flight, hands unsent claimed rows back, and stops. */
  stop(): Promise<void>;
}

const HOUSEKEEPING_MS = 60_000;
/** Workers of this process that are running: on PGlite, every other holder of a row is a process that is gone. */
const liveWorkers = new Set<string>();

export function startWorker(ctx: AppContext, options: WorkerOptions = {}): SendWorker {
  const settings: SendingConfig = { ...ctx.config.sending, ...definedOnly(options) };
  const id = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const lanes = Math.max(1, options.lanes ?? 3);
  const turnMs = options.turnMs ?? 5000;
  const freezeChunk = Math.max(1, options.freezeChunk ?? (ctx.db.kind === 'pglite' ? FREEZE_CHUNK_PGLITE : FREEZE_CHUNK));
  let stopping = false;
  // Freezing left for the next pass: the loop goes straight on instead of idling.
  let freezing = false;
  const sleepers = new Set<() => void>();
  let lastHousekeeping = 0;
  // Expired leases are looked for this often while campaigns are drained too, not only between passes (a pass can
  // last a turn per campaign): a dead worker's rows are back within the lease plus this.
  const requeueEveryMs = Math.max(1000, (settings.leaseSeconds * 1000) / 4);
  let lastRequeue = 0;
  let requeueing: Promise<void> | null = null;
  let orphansChecked = !(options.reclaimOnStart ?? (ctx.db.kind === 'pglite' && options.loop !== false));
  liveWorkers.add(id);
  const cache = new Map<number, { version: number; compiled: Promise<CompiledCampaign> }>();
  const versions = new Map<number, number>();

  const env: BatchEnv = {
    ctx,
    workerId: id,
    settings,
    slots: new Semaphore(settings.concurrency),
    isStopping: () => stopping,
    failureRuns: new Map(),
    relay: relayState(ctx, settings),
    compiled(campaignId) {
      // One compilation per campaign and content version (updated_at), shared by every lane.
      const version = versions.get(campaignId) ?? 0;
      const hit = cache.get(campaignId);
      if (hit && hit.version === version) return hit.compiled;
      const compiled = compileCampaign(ctx, campaignId);
      compiled.catch(() => cache.delete(campaignId));
      cache.set(campaignId, { version, compiled });
      return compiled;
    },
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping || ms <= 0) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      }
      sleepers.add(done);
    });

  /** Hands back rows whose lease ran out (one call at a time; the lanes share it). */
  function requeueExpired(): Promise<void> {
    requeueing ??= (async () => {
      try {
        lastRequeue = Date.now();
        let requeued = 0;
        if (!orphansChecked) {
          requeued += await requeueOrphans(ctx.db, [...liveWorkers]);
          orphansChecked = true;
        }
        requeued += await requeueExpiredLeases(ctx.db);
        if (requeued > 0) ctx.log.warn({ requeued }, 'deliveries of a stopped worker queued again');
      } finally {
        requeueing = null;
      }
    })();
    return requeueing;
  }

  async function drain(campaignId: number): Promise<{ batches: number; sent: number }> {
    const deadline = Date.now() + turnMs;
    // Where the campaign's run of failures stands now (a resume resets it), so a batch stops burning at the limit.
    env.failureRuns.set(campaignId, await consecutiveFailures(ctx.db, campaignId));
    let batches = 0;
    let sent = 0;
    let paused = false;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        // Each lane runs at least one batch per turn, however short the turn, and stops when it finds nothing to
        // claim (the others may still be busy with theirs, and claim what they send back for a retry).
        for (let first = true; !paused && !stopping && (first || Date.now() < deadline); first = false) {
          if (Date.now() - lastRequeue >= requeueEveryMs) await requeueExpired();
          const result = await runBatch(env, campaignId);
          if (result.waitUntil) {
            await sleep(Math.min(result.waitUntil.getTime() - Date.now() + 5, Math.max(0, deadline - Date.now())));
            continue;
          }
          if (result.stopped) paused = true;
          if (result.claimed === 0 || result.stopped) break;
          batches++;
          sent += result.sent;
        }
      }),
    );
    return { batches, sent };
  }

  async function runOnce(): Promise<RunSummary> {
    await requeueExpired();
    if (Date.now() - lastHousekeeping > HOUSEKEEPING_MS) {
      lastHousekeeping = Date.now();
      await deleteOldWindows(ctx.db, settings.domainWindowSeconds);
    }
    const started = await promoteDueCampaigns(ctx);
    const frozen = await freezePending(ctx, { chunkSize: freezeChunk, turnMs, isStopping: () => stopping });
    // Only when this worker is the one freezing: another worker's chunk is no reason to spin.
    freezing = frozen.unfinished && frozen.chunks > 0;
    const active = await activeCampaigns(ctx.db);
    for (const key of cache.keys()) if (!active.some((c) => c.id === key)) cache.delete(key);
    let batches = 0;
    let sent = 0;
    let finished = 0;
    for (const campaign of active) {
      if (stopping) break;
      versions.set(campaign.id, campaign.updatedAt);
      const drained = await drain(campaign.id);
      batches += drained.batches;
      sent += drained.sent;
      if (!stopping && (await finishIfDone(ctx, campaign.id))) finished++;
    }
    return { started: started.length, frozen: frozen.added, batches, sent, finished };
  }

  let running: Promise<unknown> = Promise.resolve();
  const serialised = (): Promise<RunSummary> => {
    const next = running.then(runOnce, runOnce);
    running = next.catch(() => {});
    return next;
  };

  const loop = (async () => {
    if (options.loop === false) return;
    ctx.log.info({ workerId: id }, 'campaign sender started');
    let failures = 0;
    while (!stopping) {
      try {
        const summary = await serialised();
        failures = 0;
        if (summary.batches === 0 && !freezing) await sleep(settings.pollMs);
      } catch (err) {
        // A database or mail server that is down: say so, and wait longer each time (up to 30 s) instead of spinning.
        failures++;
        ctx.log.error({ err, failures }, 'campaign sender pass failed; trying again');
        await sleep(Math.min(30_000, settings.pollMs * 2 ** Math.min(failures, 10)));
      }
    }
  })();

  return {
    id,
    runOnce: serialised,
    async stop() {
      stopping = true;
      for (const wake of [...sleepers]) wake();
      await loop;
      await running;
      liveWorkers.delete(id);
      cache.clear();
    },
  };
}

function definedOnly(options: Partial<SendingConfig>): Partial<SendingConfig> {
  const keys: (keyof SendingConfig)[] = [
    'batchSize',
    'concurrency',
    'leaseSeconds',
    'maxAttempts',
    'retryDelaySeconds',
    'failurePause',
    'rate',
    'domainRate',
    'domainWindowSeconds',
    'pollMs',
    'relayRetryMs',
    'relayRetryMaxMs',
  ];
  return Object.fromEntries(keys.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
}
