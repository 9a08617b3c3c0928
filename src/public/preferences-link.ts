import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';

/*
 * The preference-centre link of a subscriber: `PUBLIC_URL/preferences/<token>`, carried by `[PREFERENCESURL]` in
 * campaign mail and by the confirm page. The token names the subscriber's unique id, signed with the installation's
 * link secret (the one of the unsubscribe and list-join tokens) under its own domain label, so that no other token
 * passes as one and nobody reaches another subscriber's preferences by editing a link. It does not expire: the
 * link of a mail must work as long as the mail is kept. Layout (then base64url): 1 byte kind, the unique id
 * (kind 1: the usual 32 hex digits packed into 16 bytes; kind 2: any other id as UTF-8), 16 bytes of HMAC-SHA256.
 */

const DOMAIN = Buffer.from('mailroom/preferences\0');
const MAC_BYTES = 16;
const HEX_KIND = 1;
const TEXT_KIND = 2;
const MAX_UID_BYTES = 128;

const mac = (secret: string, payload: Buffer) =>
  createHmac('sha256', secret).update(DOMAIN).update(payload).digest().subarray(0, MAC_BYTES);

export function encodePreferencesToken(secret: string, uniqueId: string): string {
  const hex = /^[0-9a-f]{32}$/.test(uniqueId);
  const uid = hex ? Buffer.from(uniqueId, 'hex') : Buffer.from(uniqueId, 'utf8');
  if (uid.length === 0 || uid.length > MAX_UID_BYTES) throw new Error('unique id unfit for a preferences token');
  const payload = Buffer.concat([Buffer.from([hex ? HEX_KIND : TEXT_KIND]), uid]);
  return Buffer.concat([payload, mac(secret, payload)]).toString('base64url');
}

/** The unique id a token names, or null when it is malformed or forged. */
export function decodePreferencesToken(secret: string, token: string): string | null {
  if (!/^[A-Za-z0-9_-]{24,200}$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  // Re-encoding must give the same text: no second spelling of one token.
  if (bytes.length < 1 + 1 + MAC_BYTES || bytes.toString('base64url') !== token) return null;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(payload.length), mac(secret, payload))) return null;
  const kind = payload.readUInt8(0);
  const uid = payload.subarray(1);
  if (kind === HEX_KIND && uid.length === 16) return uid.toString('hex');
  if (kind === TEXT_KIND) return uid.toString('utf8');
  return null;
}

/** The preference-centre link of a subscriber. */
export function preferencesUrl(ctx: Pick<AppContext, 'config' | 'secrets'>, subscriber: { readonly uniqueId: string }): string {
  return `${ctx.config.publicUrl}/preferences/${encodePreferencesToken(ctx.secrets.linkToken, subscriber.uniqueId)}`;
}
