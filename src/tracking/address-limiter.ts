import type { AppContext } from '../context.js';

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

const limiters = new WeakMap<AppContext, { opens: AddressLimiter; clicks: AddressLimiter }>();

/** The app's limiters (one for opens, one for clicks, so a flood of one does not cost the other), made on first use. */
export function trackingLimiters(ctx: AppContext): { opens: AddressLimiter; clicks: AddressLimiter } {
  let found = limiters.get(ctx);
  if (!found) {
    const rate = ctx.config.tracking.ratePerAddress;
    found = { opens: new AddressLimiter(rate), clicks: new AddressLimiter(rate) };
    limiters.set(ctx, found);
  }
  return found;
}
