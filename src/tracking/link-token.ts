import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Click-tracking tokens: `PUBLIC_URL/lt/<token>`. A token names the campaign's stored link and the subscriber it was
 * sent to, signed so that nobody can forge clicks for other subscribers or links: 4 bytes link id, 4 bytes
 * subscriber id, the first 10 bytes (80 bits) of HMAC-SHA256 over those 8 — 18 bytes, 24 base64url characters.
 *
 * Until issue 17 the MAC was 4 bytes (16 characters), which a patient client could guess. Such tokens are still in
 * people's mailboxes, so they are still read, but only for links that existed before the change (the caller checks
 * `legacy` against the installation's `legacy_link_tokens_below`): a link made since cannot be reached with one.
 */

const MAC_BYTES = 10;
const LEGACY_MAC_BYTES = 4;
const TOKEN = /^[A-Za-z0-9_-]{24}$/;
const LEGACY_TOKEN = /^[A-Za-z0-9_-]{16}$/;

export interface LinkTarget {
  readonly linkId: number;
  readonly subscriberId: number;
}

export interface DecodedLinkToken extends LinkTarget {
  /** A 16-character token with a 32-bit MAC, made before issue 17. */
  readonly legacy: boolean;
}

function mac(secret: string, payload: Buffer, bytes: number): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, bytes);
}

function payloadOf(target: LinkTarget): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(target.linkId, 0);
  payload.writeUInt32BE(target.subscriberId, 4);
  return payload;
}

export function encodeLinkToken(secret: string, target: LinkTarget): string {
  const payload = payloadOf(target);
  return Buffer.concat([payload, mac(secret, payload, MAC_BYTES)]).toString('base64url');
}

/** The token links carried before issue 17; only for tests of the links already sent with it. */
export function encodeLegacyLinkToken(secret: string, target: LinkTarget): string {
  const payload = payloadOf(target);
  return Buffer.concat([payload, mac(secret, payload, LEGACY_MAC_BYTES)]).toString('base64url');
}

/** The link and subscriber a token names, or null when it is malformed or its signature does not match. */
export function decodeLinkToken(secret: string, token: string): DecodedLinkToken | null {
  const legacy = LEGACY_TOKEN.test(token);
  if (!legacy && !TOKEN.test(token)) return null;
  const macBytes = legacy ? LEGACY_MAC_BYTES : MAC_BYTES;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length !== 8 + macBytes) return null;
  const payload = bytes.subarray(0, 8);
  if (!timingSafeEqual(bytes.subarray(8), mac(secret, payload, macBytes))) return null;
  return { linkId: payload.readUInt32BE(0), subscriberId: payload.readUInt32BE(4), legacy };
}
