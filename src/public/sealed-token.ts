import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/*
 * Short-lived sealed tokens carrying a few text fields: the address-change link (subscriber and new address), its
 * undo link (subscriber and old address) and the unsubscribe page's "resubscribe" form (subscriber and lists).
 * Encrypted and authenticated with AES-256-GCM (issue 23: no personal data readable inside a token), under a key
 * derived (HKDF-SHA256) from the installation's link secret and the purpose's own domain label, so that no token of
 * one purpose (or any other link of the service) opens as another's. Layout (then base64url): 12 bytes of nonce,
 * the ciphertext of [4 bytes expiry (Unix seconds), the fields as UTF-8 joined by NUL], 16 bytes of GCM tag.
 * Nothing is stored: a token is good until it expires, and what it does is idempotent.
 */

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const MAX_BYTES = 600;

export type Opened = { readonly fields: string[] } | 'expired' | null;

const keys = new Map<string, Buffer>();
function keyOf(secret: string, domain: string): Buffer {
  const id = `${domain}\0${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'mailroom/sealed-token', `mailroom/${domain}`, 32));
    keys.set(id, key);
  }
  return key;
}

export function seal(secret: string, domain: string, fields: readonly string[], ttlSeconds: number, now = Date.now()): string {
  if (fields.some((f) => f.includes('\0'))) throw new Error('a sealed field cannot hold NUL');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(Math.floor(now / 1000) + ttlSeconds, 0);
  const payload = Buffer.concat([head, Buffer.from(fields.join('\0'), 'utf8')]);
  if (payload.length > MAX_BYTES) throw new Error('sealed token too long');
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret, domain), nonce);
  const body = Buffer.concat([cipher.update(payload), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** The fields of a token made by `seal` for `domain`; `expired` when genuine but late; null when forged or garbled. */
export function unseal(secret: string, domain: string, token: string, now = Date.now()): Opened {
  // Bounded, linear check (no backtracking): base64url characters only, at most what MAX_BYTES encodes to.
  if (token.length < 43 || token.length > 840 || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length < NONCE_BYTES + 4 + TAG_BYTES || bytes.toString('base64url') !== token) return null;
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret, domain), bytes.subarray(0, NONCE_BYTES));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  let payload: Buffer;
  try {
    payload = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return null;
  }
  if (payload.readUInt32BE(0) * 1000 < now) return 'expired';
  return { fields: payload.subarray(4).toString('utf8').split('\0') };
}
