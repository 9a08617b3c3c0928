import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Short-lived signed tokens carrying a few text fields: the address-change link (subscriber and new address) and the
 * unsubscribe page's "resubscribe" form (subscriber and lists). Layout (then base64url): 4 bytes expiry (Unix
 * seconds), the fields as UTF-8 joined by NUL, 16 bytes of HMAC-SHA256 under the purpose's own domain label, so that
 * no token of one purpose (or any other link of the service, same secret) passes as another's. Compared in constant
 * time. Nothing is stored: a token is good until it expires, and what it does is idempotent.
 */

const MAC_BYTES = 16;
const MAX_BYTES = 600;

export type Opened = { readonly fields: string[] } | 'expired' | null;

const mac = (secret: string, domain: string, payload: Buffer) =>
  createHmac('sha256', secret).update(`mailroom/${domain}\0`).update(payload).digest().subarray(0, MAC_BYTES);

export function seal(secret: string, domain: string, fields: readonly string[], ttlSeconds: number, now = Date.now()): string {
  if (fields.some((f) => f.includes('\0'))) throw new Error('a sealed field cannot hold NUL');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(Math.floor(now / 1000) + ttlSeconds, 0);
  const payload = Buffer.concat([head, Buffer.from(fields.join('\0'), 'utf8')]);
  if (payload.length > MAX_BYTES) throw new Error('sealed token too long');
  return Buffer.concat([payload, mac(secret, domain, payload)]).toString('base64url');
}

/** The fields of a token made by `seal` for `domain`; `expired` when genuine but late; null when forged or garbled. */
export function unseal(secret: string, domain: string, token: string, now = Date.now()): Opened {
  // Bounded, linear check (no backtracking): base64url characters only, at most what MAX_BYTES encodes to.
  if (token.length < 28 || token.length > 820 || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length < 4 + MAC_BYTES || bytes.toString('base64url') !== token) return null;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(payload.length), mac(secret, domain, payload))) return null;
  if (payload.readUInt32BE(0) * 1000 < now) return 'expired';
  return { fields: payload.subarray(4).toString('utf8').split('\0') };
}
