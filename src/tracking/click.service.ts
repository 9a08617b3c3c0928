import type { AppContext } from '../context.js';
import { findLink, type LinkTarget } from './click.repository.js';
import { trackingLimits } from './address-limiter.js';
import { decodeLinkToken } from './link-token.js';
import { requesterMachineReason } from './machine-detection.js';
import type { RequestDetails } from './request-details.js';

/*
 * Click tracking: the signed token names the link and the subscriber (link-token.ts); the link's URL comes from a
 * small cache, so a campaign's thousands of clicks on its few links cost no query each; the click goes to the event
 * buffer and the reader is redirected at once.
 */

const CACHE_SIZE = 10_000;
/** A link's URL never changes, but a deleted campaign's links should stop redirecting some time. */
const CACHE_TTL_MS = 5 * 60_000;

class LinkCache {
  private readonly entries = new Map<number, { target: LinkTarget; expires: number }>();

  get(id: number): LinkTarget | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    if (entry.expires < Date.now()) return undefined;
    this.entries.set(id, entry); // most recently used last
    return entry.target;
  }

  set(id: number, target: LinkTarget): void {
    if (this.entries.size >= CACHE_SIZE) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { target, expires: Date.now() + CACHE_TTL_MS });
  }
}

const caches = new WeakMap<AppContext, LinkCache>();

async function linkTarget(ctx: AppContext, id: number): Promise<LinkTarget | null> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new LinkCache()));
  const cached = cache.get(id);
  if (cached) return cached;
  const found = await findLink(ctx.db, id);
  if (found) cache.set(id, found);
  return found;
}

/** followLink's answer for an old-format token from an address over its rate (the caller answers 429). */
export const LIMITED = Symbol('limited');

/**
 * Where a click-tracking token leads, recording the click on the way; null for a malformed or forged token or a
 * link that no longer exists (the caller answers 404); LIMITED for an old-format token over the address's rate
 * (TRACKING_RATE). The URL is made safe to send as a Location header.
 */
export async function followLink(ctx: AppContext, token: string | undefined, details: RequestDetails): Promise<string | null | typeof LIMITED> {
  const limits = trackingLimits(ctx);
  if (!token) return null;
  const target = decodeLinkToken(ctx.secrets.linkToken, token);
  // Every token that is not a current one takes from the address's bucket, valid or not: guessing is what it limits.
  const withinGuesses = target !== null && !target.legacy ? true : limits.guesses.take(details.ip);
  if (!target) return null;
  if (target.legacy) {
    if (target.linkId >= ctx.secrets.legacyLinkTokensBelow) return null;
    // A 32-bit MAC can be found by trying: over the rate, an old token is not even looked at.
    if (!withinGuesses) return LIMITED;
  }
  const link = await linkTarget(ctx, target.linkId);
  if (!link) return null;
  // Over the rate for this delivery from this address a token (80 bits, not guessable) still takes its reader where
  // they meant to go; only the click is not recorded, so one address repeating one delivery cannot skew the figures.
  if (!limits.takeClick(details.ip, target.subscriberId, link.campaignId)) return locationOf(link.url);
  ctx.events.addClick({
    linkId: target.linkId,
    campaignId: link.campaignId,
    subscriberId: target.subscriberId,
    at: new Date(),
    ...details,
    machineReason: requesterMachineReason(details.userAgent, details.ip),
  });
  return locationOf(link.url);
}

/**
 * A URL as a header value: parsed and re-serialised when it is absolute (non-ASCII percent-encoded, host in
 * punycode), otherwise every character outside printable ASCII percent-encoded. Node refuses anything else.
 */
export function locationOf(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  }
}
