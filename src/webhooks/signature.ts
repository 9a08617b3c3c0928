import { createHmac, randomBytes } from 'node:crypto';

/*
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of the key bytes; the
 * signature is `v1,` + base64 HMAC-SHA256, keyed with those bytes, of `${webhook-id}.${webhook-timestamp}.${body}`.
 */

export const SECRET_PREFIX = 'whsec_';

/** A new secret: 32 random bytes (the specification asks for 24 to 64). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** Whether a given secret has the specification's form: `whsec_` and 24 to 64 bytes in base64. */
export function isValidSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return false;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
