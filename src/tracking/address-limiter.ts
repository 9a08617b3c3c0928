import type { AppContext } from '../context.js';
import { trackingEventsTotal } from '../shared/metrics.js';

/*
 * Per client address token buckets for the public tracking endpoints (/lt, /t/open.gif), kept in memory: they
 * answer tens of thousands of requests a second, so a check is one Map lookup and some arithmetic, no I/O. Each
 * process counts its own (several API processes behind a balancer each allow the rate). The map is bounded: past
 * `maxAddresses` the address seen first is forgotten (it starts again with a full bucket), so a flood of addresses
 * costs memory only up to the bound.
 */

interface Bucket {
  tokens: number;
  /** performance.now() of the last refill. */
  at: number;
}

export const MAX_ADDRESSES = 100_000;
/** A bucket holds this many seconds' worth: bursts (a person opening a mail and clicking twice) pass. */
const BURST_SECONDS = 5;

export class AddressLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly maxAddresses = MAX_ADDRESSES,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.burst = Math.max(1, ratePerSecond * BURST_SECONDS);
  }

  /** Takes one request's token: false when `address` is over its rate. Always true when the rate is 0 (off). */
  take(address: string | null): boolean {
    if (this.ratePerSecond <= 0 || address === null) return true;
    const now = this.now();
    let bucket = this.buckets.get(address);
    if (!bucket) {
      if (this.buckets.size >= this.maxAddresses) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(address, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
      bucket.at = now;
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** Opens and clicks the rate did not let through, since the app started: what a metrics endpoint can report. */
export interface TrackingDrops {
  readonly opens: number;
  readonly clicks: number;
}

/** At most one log line this often about what the rate did not record. */
const DROP_LOG_INTERVAL_MS = 60_000;

/**
 * The app's tracking limits. What is recorded is limited per client address *and delivery* (the subscriber's copy
 * of one campaign): image proxies (Gmail, Apple Mail Privacy Protection) and company gateways fetch for many readers
 * from a few addresses, and a limit per address alone dropped their readers' opens (issue 23: of 177,718 opens of
 * distinct recipients from one address, 269 were recorded). One address repeating one delivery is what inflates the
 * figures, so that is what is bounded; distinct deliveries each have their own bucket (an unknown uid is dropped by the
 * flush, which looks deliveries up in bulk). Old 16-character click tokens, whose 32-bit MAC can be found by trying,
 * are still limited per address: guessing is what that bounds.
 */
export class TrackingLimits {
  private readonly opens: AddressLimiter;
  private readonly clicks: AddressLimiter;
  readonly guesses: AddressLimiter;
  private readonly dropped = { opens: 0, clicks: 0 };
  /** Drops since the last log line, and when it was written. */
  private readonly unlogged = { opens: 0, clicks: 0 };
  private loggedAt = -Infinity;

  constructor(
    rate: number,
    private readonly log: { warn(details: object, message: string): void },
    private readonly now: () => number = () => performance.now(),
  ) {
    this.opens = new AddressLimiter(rate, MAX_ADDRESSES, now);
    this.clicks = new AddressLimiter(rate, MAX_ADDRESSES, now);
    this.guesses = new AddressLimiter(rate, MAX_ADDRESSES, now);
  }

  /** Whether an open of campaign `campaignId` by the subscriber with uid `uid`, from `address`, is recorded. */
  takeOpen(address: string | null, uid: string, campaignId: number): boolean {
    return this.counted('opens', this.opens.take(address === null ? null : `${address} ${uid} ${campaignId}`));
  }

  /** Whether a click of the subscriber's copy of campaign `campaignId`, from `address`, is recorded. */
  takeClick(address: string | null, subscriberId: number, campaignId: number): boolean {
    return this.counted('clicks', this.clicks.take(address === null ? null : `${address} ${subscriberId} ${campaignId}`));
  }

  get drops(): TrackingDrops {
    return { ...this.dropped };
  }

  private counted(kind: 'opens' | 'clicks', taken: boolean): boolean {
    if (taken) return true;
    this.dropped[kind]++;
    trackingEventsTotal.inc({ kind: kind === 'opens' ? 'open' : 'click', result: 'limited' });
    this.unlogged[kind]++;
    const now = this.now();
    if (now - this.loggedAt >= DROP_LOG_INTERVAL_MS) {
      this.log.warn(
        { droppedOpens: this.unlogged.opens, droppedClicks: this.unlogged.clicks },
        'TRACKING_RATE: repeated opens or clicks of one delivery from one address were answered but not recorded',
      );
      this.unlogged.opens = 0;
      this.unlogged.clicks = 0;
      this.loggedAt = now;
    }
    return false;
  }
}

const limits = new WeakMap<AppContext, TrackingLimits>();

/** The app's tracking limits, made on first use. */
export function trackingLimits(ctx: AppContext): TrackingLimits {
  let found = limits.get(ctx);
  if (!found) {
    found = new TrackingLimits(ctx.config.tracking.ratePerAddress, ctx.log);
    limits.set(ctx, found);
  }
  return found;
}

/** What TRACKING_RATE did not record since the app started (for a metrics endpoint to come). */
export function trackingDrops(ctx: AppContext): TrackingDrops {
  return trackingLimits(ctx).drops;
}
