import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { trackingEventsTotal, trackingFlushDuration } from '../shared/metrics.js';
import { writeEvents } from './event-flush.service.js';
import { flagScannerBursts, SCANNER_WINDOW_MS } from './machine-detection.js';
import type { ClickEvent, OpenEvent } from './tracking-event.js';

/*
 * The write buffer between the tracking endpoints and the database. The open pixel and the click redirect answer as
 * soon as their event is in memory; every TRACKING_FLUSH_MS (or sooner, once ROWS_PER_FLUSH events wait) one
 * transaction writes the waiting events in multi-row statements and updates every counter they change. A request
 * path with no query is what lets one process answer thousands of pixels a second; the price is the durability
 * window: a crash (not a graceful stop, which flushes in onClose before the database closes) loses at most the
 * events of one interval, plus clicks still held (below). Documented in docs/api.md.
 */

/** Events per flush; more waiting than this starts a flush before the interval is up. */
const ROWS_PER_FLUSH = 2000;
/** Waiting events kept while the database cannot be written; beyond it the oldest are dropped (and logged). */
const MAX_PENDING = 200_000;
/** How long a graceful close keeps retrying a failing flush before giving up. */
const CLOSE_DEADLINE_MS = 10_000;

export interface EventBufferOptions {
  readonly db: Db;
  readonly log: FastifyBaseLogger;
  readonly flushMs: number;
  readonly machineSeconds: number;
}

export class EventBuffer {
  private opens: OpenEvent[] = [];
  private clicks: ClickEvent[] = [];
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retryAfter = 0;
  private failures = 0;
  private closed = false;

  constructor(private readonly options: EventBufferOptions) {}

  /** Starts the periodic flush (unref'd: it never keeps the process alive by itself). */
  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.tick(), this.options.flushMs);
    this.timer.unref();
  }

  /** Events not yet written. */
  get pending(): number {
    return this.opens.length + this.clicks.length;
  }

  /** Takes an open; false when the buffer is closed (the app is stopping) and the event was not kept. */
  addOpen(event: OpenEvent): boolean {
    return this.add(this.opens, event);
  }

  addClick(event: ClickEvent): boolean {
    return this.add(this.clicks, event);
  }

  private add<T>(queue: T[], event: T): boolean {
    if (this.closed) {
      this.options.log.warn('tracking event after the buffer closed; not recorded');
      return false;
    }
    queue.push(event);
    if (this.pending > MAX_PENDING) this.shed();
    if (this.pending >= ROWS_PER_FLUSH) this.tick();
    return true;
  }

  /** Writes everything waiting now, held clicks included, and rejects if the database refuses (tests, close). */
  async flush(): Promise<void> {
    await this.settled();
    while (this.pending > 0) await this.run(true, true);
  }

  /** Stops the timer and writes what is waiting, retrying a failing database until CLOSE_DEADLINE_MS. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const deadline = Date.now() + CLOSE_DEADLINE_MS;
    await this.settled();
    while (this.pending > 0) {
      try {
        await this.run(true, true);
      } catch (err) {
        if (Date.now() > deadline) {
          this.options.log.error({ err, lost: this.pending }, 'tracking events could not be written before shutdown');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** The flush under way, if any, finished (its failure is its caller's to report). */
  private async settled(): Promise<void> {
    await this.running?.catch(() => {});
  }

  private tick(): void {
    if (this.running || Date.now() < this.retryAfter || this.pending === 0) return;
    this.run(false, false).catch(() => {
      // Logged in run; the events are back in the queue for the next tick.
    });
  }

  /**
   * One flush of at most ROWS_PER_FLUSH opens and clicks. Clicks wait SCANNER_WINDOW_MS in the buffer unless
   * `all`, so that a scanner's burst is in memory or stored when each of its clicks is judged. On failure the events
   * go back to the front of the queues.
   */
  private run(all: boolean, rethrow: boolean): Promise<void> {
    // One flush at a time per process (flush() and close() may be called while the timer's is under way).
    if (this.running) return this.settled().then(() => this.run(all, rethrow));
    const opens = this.opens.splice(0, ROWS_PER_FLUSH);
    const cutoff = all ? Infinity : Date.now() - SCANNER_WINDOW_MS;
    let ready = 0;
    while (ready < this.clicks.length && ready < ROWS_PER_FLUSH && this.clicks[ready]!.at.getTime() <= cutoff) ready++;
    const clicks = this.clicks.splice(0, ready);
    if (opens.length === 0 && clicks.length === 0) return Promise.resolve();
    flagScannerBursts(clicks, this.clicks);

    const work = (async () => {
      try {
        const timer = trackingFlushDuration.startTimer();
        const result = await writeEvents(this.options.db, { opens, clicks }, this.options.machineSeconds);
        timer();
        countWritten(opens.length, clicks.length, result);
        this.failures = 0;
        if (result.droppedOpens > 0 || result.droppedClicks > 0) {
          // Unknown uid or campaign, or no delivery record: expected now and then (forwarded mail, deleted data).
          this.options.log.debug(
            { droppedOpens: result.droppedOpens, droppedClicks: result.droppedClicks },
            'tracking events not recorded: unknown subscriber or campaign, or no delivery',
          );
        }
      } catch (err) {
        this.opens = opens.concat(this.opens);
        this.clicks = clicks.concat(this.clicks);
        this.failures++;
        this.retryAfter = Date.now() + Math.min(5000, 100 * 2 ** Math.min(this.failures, 6));
        this.options.log.error({ err, pending: this.pending, failures: this.failures }, 'writing tracking events failed; will retry');
        if (rethrow) throw err;
      }
    })();
    this.running = work.finally(() => {
      this.running = null;
      // A backlog larger than one flush is worked off at once rather than one batch per interval.
      if (this.pending >= ROWS_PER_FLUSH && !this.closed) setImmediate(() => this.tick());
    });
    return this.running;
  }

  /** Drops the oldest events beyond MAX_PENDING: memory stays bounded while the database is unreachable. */
  private shed(): void {
    const excess = this.pending - MAX_PENDING;
    const fromOpens = Math.min(excess, this.opens.length);
    this.opens.splice(0, fromOpens);
    this.clicks.splice(0, excess - fromOpens);
    trackingEventsTotal.inc({ kind: 'open', result: 'shed' }, fromOpens);
    trackingEventsTotal.inc({ kind: 'click', result: 'shed' }, excess - fromOpens);
    this.options.log.error({ dropped: excess }, 'tracking buffer full (database unreachable?); oldest events dropped');
  }
}

/** Recorded and unmatched (no such delivery) opens and clicks of one written batch, for GET /metrics. */
function countWritten(opens: number, clicks: number, result: { droppedOpens: number; droppedClicks: number }): void {
  trackingEventsTotal.inc({ kind: 'open', result: 'recorded' }, opens - result.droppedOpens);
  trackingEventsTotal.inc({ kind: 'open', result: 'unmatched' }, result.droppedOpens);
  trackingEventsTotal.inc({ kind: 'click', result: 'recorded' }, clicks - result.droppedClicks);
  trackingEventsTotal.inc({ kind: 'click', result: 'unmatched' }, result.droppedClicks);
}
