import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../db/client.js';
import { foldBounceCounts } from './bounce-processing.repository.js';

/*
 * Keeps the shared bounce figures (campaigns.bounce_count, campaign_counters.bounces, bounce_rules.match_count)
 * fresh. A bounce's own transaction only appends an increment (see "Durability" in
 * src/db/routines/040_bounce_counts.sql); this adds the pending ones to the figures: every FOLD_MS in a process that
 * recorded bounces since its last fold, once at start (what a crashed process left), and at a graceful stop before
 * the database closes. Nothing is lost when a fold fails or the process dies: the increments stay in the database
 * for the next fold, of this or any other process.
 */

/** How often a process that records bounces folds their counts: the figures lag the bounces by about this much. */
export const FOLD_MS = 500;

export interface BounceCountsOptions {
  readonly db: Executor;
  readonly log: FastifyBaseLogger;
  readonly foldMs?: number;
}

export class BounceCounts {
  private timer: NodeJS.Timeout | null = null;
  /** Bounces were recorded since the last fold started. */
  private dirty = false;
  /** The folds asked for, one after the other (one connection at a time is enough). */
  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private closed = false;
  private failures = 0;
  private retryAfter = 0;

  constructor(private readonly options: BounceCountsOptions) {}

  /** Folds what earlier processes left, then starts the periodic fold (unref'd: it never keeps the process alive). */
  start(): void {
    if (this.timer || this.closed) return;
    this.dirty = true;
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.foldMs ?? FOLD_MS);
    this.timer.unref();
  }

  /** A bounce was recorded: its counts are folded by the next tick. */
  recorded(): void {
    this.dirty = true;
  }

  /**
   * Folds now: every increment committed before the call is in the figures when this resolves (a fold already under
   * way may have started before it, so this one runs after it). Rejects when the database refuses.
   */
  fold(): Promise<number> {
    this.dirty = false;
    this.pending++;
    const run = this.queue.then(() => foldBounceCounts(this.options.db));
    this.queue = run.catch(() => {}).finally(() => this.pending--);
    return run;
  }

  /** Stops the timer and folds what this process recorded; a failure is logged (the next start folds it). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.fold().catch((err: unknown) =>
      this.options.log.warn({ err }, 'folding bounce counts at shutdown failed; the next process to start folds them'),
    );
  }

  private tick(): void {
    if (!this.dirty || this.pending > 0 || Date.now() < this.retryAfter) return;
    this.fold().then(
      () => {
        this.failures = 0;
      },
      (err: unknown) => {
        // The database is away: try again later, less often the longer it stays away (at most every 30 s).
        this.dirty = true;
        this.failures++;
        this.retryAfter = Date.now() + Math.min(30_000, 500 * 2 ** Math.min(this.failures, 6));
        this.options.log.error({ err, failures: this.failures }, 'folding bounce counts failed; will retry');
      },
    );
  }
}
