import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';

/*
 * Unsubscribe tokens: `PUBLIC_URL/api/v2/unsubscribe/<token>`, the List-Unsubscribe link of every campaign mail.
 * A token names the campaign and the subscriber's unique id, signed so that nobody can unsubscribe others by
 * editing a link. Layout (then base64url): 1 byte kind, 4 bytes campaign id, the unique id, 12 bytes of
 * HMAC-SHA256. Kind 1 packs the usual 32-hex unique id into 16 bytes (44 characters in all); kind 2 carries any
 * other unique id (imported from elsewhere) as UTF-8. The MAC input starts with its own domain label, so a
 * signature made for a click-tracking token (same secret) can never pass as an unsubscribe one, or back.
 */

const DOMAIN = Buffer.from('mailroom/unsubscribe\0');
const MAC_BYTES = 12;
const HEX_KIND = 1;
const TEXT_KIND = 2;
/** Longer unique ids are not ours; refusing them keeps a token (and a forged one) short. */
const MAX_UID_BYTES = 128;

export interface UnsubscribeTarget {
  readonly uniqueId: string;
  readonly campaignId: number;
}

/**
 * The layout above, for any purpose: a subscriber's unique id and one 32-bit number (a campaign id here, the day a
 * preferences link was made in sending/preferences-link.ts), signed under a domain label of its own so that no token
 * of one purpose passes as another's.
 */
export interface SubscriberToken {
  readonly uniqueId: string;
  readonly number: number;
}

function mac(secret: string, domain: Buffer, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(domain).update(payload).digest().subarray(0, MAC_BYTES);
}

export function encodeSubscriberToken(secret: string, domain: Buffer, target: SubscriberToken): string {
  const hex = /^[0-9a-f]{32}$/.test(target.uniqueId);
  const uid = hex ? Buffer.from(target.uniqueId, 'hex') : Buffer.from(target.uniqueId, 'utf8');
  if (uid.length > MAX_UID_BYTES) throw new Error('unique id too long for a subscriber token');
  const head = Buffer.alloc(5);
  head.writeUInt8(hex ? HEX_KIND : TEXT_KIND, 0);
  head.writeUInt32BE(target.number, 1);
  const payload = Buffer.concat([head, uid]);
  return Buffer.concat([payload, mac(secret, domain, payload)]).toString('base64url');
}

/** The subscriber and number a token names, or null when it is malformed or its signature does not match. */
export function decodeSubscriberToken(secret: string, domain: Buffer, token: string): SubscriberToken | null {
  if (!/^[A-Za-z0-9_-]{24,200}$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  // Re-encoding must give the same text: no second spelling of one token.
  if (bytes.length < 5 + 1 + MAC_BYTES || bytes.toString('base64url') !== token) return null;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(payload.length), mac(secret, domain, payload))) return null;
  const kind = payload.readUInt8(0);
  const number = payload.readUInt32BE(1);
  const uid = payload.subarray(5);
  if (kind === HEX_KIND && uid.length === 16) return { uniqueId: uid.toString('hex'), number };
  if (kind === TEXT_KIND) return { uniqueId: uid.toString('utf8'), number };
  return null;
}

export function encodeUnsubscribeToken(secret: string, target: UnsubscribeTarget): string {
  return encodeSubscriberToken(secret, DOMAIN, { uniqueId: target.uniqueId, number: target.campaignId });
}

/** The campaign and subscriber a token names, or null when it is malformed or its signature does not match. */
export function decodeUnsubscribeToken(secret: string, token: string): UnsubscribeTarget | null {
  const decoded = decodeSubscriberToken(secret, DOMAIN, token);
  if (!decoded || decoded.number < 1 || decoded.number > 2_147_483_647) return null;
  return { uniqueId: decoded.uniqueId, campaignId: decoded.number };
}

/** The one-click unsubscribe link of a campaign mail (List-Unsubscribe header and `[UNSUBSCRIBEURL]`). */
export function unsubscribeUrl(ctx: Pick<AppContext, 'config' | 'secrets'>, uniqueId: string, campaignId: number): string {
  return `${ctx.config.publicUrl}/api/v2/unsubscribe/${encodeUnsubscribeToken(ctx.secrets.linkToken, { uniqueId, campaignId })}`;
}
