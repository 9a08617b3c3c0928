import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Click-tracking tokens: `PUBLIC_URL/lt/<token>`. A token names the campaign's stored link and the subscriber it was
 * sent to, signed so that nobody can forge clicks for other subscribers or links: 4 bytes link id, 4 bytes
 * subscriber id, 4 bytes of HMAC-SHA256 — 12 bytes, 16 base64url characters.
 */

const MAC_BYTES = 4;

export interface LinkTarget {
  readonly linkId: number;
  readonly subscriberId: number;
}

function mac(secret: string, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES);
}

export function encodeLinkToken(secret: string, target: LinkTarget): string {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(target.linkId, 0);
  payload.writeUInt32BE(target.subscriberId, 4);
  return Buffer.concat([payload, mac(secret, payload)]).toString('base64url');
}

/** The link and subscriber a token names, or null when it is malformed or its signature does not match. */
export function decodeLinkToken(secret: string, token: string): LinkTarget | null {
  if (!/^[A-Za-z0-9_-]{16}$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length !== 8 + MAC_BYTES) return null;
  const payload = bytes.subarray(0, 8);
  if (!timingSafeEqual(bytes.subarray(8), mac(secret, payload))) return null;
  return { linkId: payload.readUInt32BE(0), subscriberId: payload.readUInt32BE(4) };
}
