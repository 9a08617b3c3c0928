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

/**
 * The link shown on the unsubscribe pages has a label of its own and lives PREFERENCES_PAGE_LINK_DAYS (days, not the
 * mail link's year): whoever holds a forwarded mail can open those pages, and the link there need not outlast the
 * visit by much.
 */
export const PAGE_PREFERENCES_DOMAIN = Buffer.from('mailroom/prefs-short\0');

export type PreferencesLink = { readonly uniqueId: string } | 'expired' | null;

export function encodePreferencesToken(secret: string, uniqueId: string, day = today(), domain = PREFERENCES_DOMAIN): string {
  return encodeSubscriberToken(secret, domain, { uniqueId, number: day });
}

/** The subscriber a mail's token names; `expired` when signed but too old (or dated in the future); null when forged. */
export function decodePreferencesToken(
  secret: string,
  token: string,
  maxDays: number,
  now = Date.now(),
  domain = PREFERENCES_DOMAIN,
): PreferencesLink {
  const decoded = decodeSubscriberToken(secret, domain, token);
  if (!decoded) return null;
  const age = today(now) - decoded.number;
  if (age < -1 || (maxDays > 0 && age > maxDays)) return 'expired';
  return { uniqueId: decoded.uniqueId };
}

/** The same for either kind of link: a mail's (`maxDays`) or an unsubscribe page's (`pageMaxDays`). */
export function decodeAnyPreferencesToken(secret: string, token: string, maxDays: number, pageMaxDays: number, now = Date.now()): PreferencesLink {
  return decodePreferencesToken(secret, token, maxDays, now) ?? decodePreferencesToken(secret, token, pageMaxDays, now, PAGE_PREFERENCES_DOMAIN);
}

/** The preference-centre link of a subscriber (the confirm page's, for one). */
export function preferencesUrl(ctx: Pick<AppContext, 'config' | 'secrets'>, subscriber: { readonly uniqueId: string }): string {
  return `${ctx.config.publicUrl}/preferences/${encodePreferencesToken(ctx.secrets.linkToken, subscriber.uniqueId)}`;
}

/** The short-lived preference-centre link of the unsubscribe pages (PREFERENCES_PAGE_LINK_DAYS). */
export function pagePreferencesUrl(ctx: Pick<AppContext, 'config' | 'secrets'>, subscriber: { readonly uniqueId: string }): string {
  const token = encodePreferencesToken(ctx.secrets.linkToken, subscriber.uniqueId, today(), PAGE_PREFERENCES_DOMAIN);
  return `${ctx.config.publicUrl}/preferences/${token}`;
}

/** For a campaign's recipients: one signer per compile (the day fixed then), falling back to the slow path. */
export function preferencesUrlMaker(ctx: Pick<AppContext, 'config' | 'secrets'>): (uniqueId: string) => string {
  const day = today();
  const sign = subscriberTokenSigner(ctx.secrets.linkToken, PREFERENCES_DOMAIN, day);
  const base = `${ctx.config.publicUrl}/preferences/`;
  return (uniqueId) => base + (sign(uniqueId) ?? encodePreferencesToken(ctx.secrets.linkToken, uniqueId, day));
}
