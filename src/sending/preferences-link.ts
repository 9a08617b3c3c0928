import type { AppContext } from '../context.js';
import { subscriberTokenSigner } from './compose/tokens.js';
import { decodeSubscriberToken, encodeSubscriberToken } from '../subscription/index.js';

/*
 * Preference-centre links: `PUBLIC_URL/preferences/<token>`, the `[PREFERENCESURL]` of campaign mail and the link of
 * the confirm page. The token is the subscriber's unique id and the day the link was made, signed with the
 * installation's link secret (HMAC-SHA256, 96 bits kept) under a domain label of its own: the unsubscribe token's
 * layout (subscription/unsubscribe-token.ts), so no database row per mail and 44 characters per link. Checked in constant
 * time; older than PREFERENCES_LINK_DAYS (0: never) it is expired, and the page says how to get a fresh one.
 */

/** 21 bytes, like the unsubscribe label, so the fast signer's message stays one SHA-256 block. */
export const PREFERENCES_DOMAIN = Buffer.from('mailroom/preferences\0');
const DAY_MS = 86_400_000;

export const today = (now = Date.now()) => Math.floor(now / DAY_MS);

export type PreferencesLink = { readonly uniqueId: string } | 'expired' | null;

export function encodePreferencesToken(secret: string, uniqueId: string, day = today()): string {
  return encodeSubscriberToken(secret, PREFERENCES_DOMAIN, { uniqueId, number: day });
}

/** The subscriber a token names; `expired` when signed but too old (or dated in the future); null when forged. */
export function decodePreferencesToken(secret: string, token: string, maxDays: number, now = Date.now()): PreferencesLink {
  const decoded = decodeSubscriberToken(secret, PREFERENCES_DOMAIN, token);
  if (!decoded) return null;
  const age = today(now) - decoded.number;
  if (age < -1 || (maxDays > 0 && age > maxDays)) return 'expired';
  return { uniqueId: decoded.uniqueId };
}

/** The preference-centre link of a subscriber (the confirm page's, for one). */
export function preferencesUrl(ctx: Pick<AppContext, 'config' | 'secrets'>, subscriber: { readonly uniqueId: string }): string {
  return `${ctx.config.publicUrl}/preferences/${encodePreferencesToken(ctx.secrets.linkToken, subscriber.uniqueId)}`;
}

/** For a campaign's recipients: one signer per compile (the day fixed then), falling back to the slow path. */
export function preferencesUrlMaker(ctx: Pick<AppContext, 'config' | 'secrets'>): (uniqueId: string) => string {
  const day = today();
  const sign = subscriberTokenSigner(ctx.secrets.linkToken, PREFERENCES_DOMAIN, day);
  const base = `${ctx.config.publicUrl}/preferences/`;
  return (uniqueId) => base + (sign(uniqueId) ?? encodePreferencesToken(ctx.secrets.linkToken, uniqueId, day));
}
