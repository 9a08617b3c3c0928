import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * List-join tokens: the link a confirmed subscriber gets when someone asks, on a public subscribe page, to add their
 * address to another list. The subscription is made only when the link is opened, so nobody can put a confirmed
 * address on a list without its owner's consent. A token names the list and the subscriber's unique id and
 * expires after JOIN_TOKEN_DAYS; it is signed with the link secret under its own domain label, so that no other
 * token (unsubscribe, click tracking) passes as one. Layout (then base64url): 4 bytes list id, 4 bytes expiry
 * (Unix seconds), the unique id (UTF-8), 16 bytes of HMAC-SHA256.
 */

const DOMAIN = Buffer.from('mailroom/list-join\0');
const MAC_BYTES = 16;
export const JOIN_TOKEN_DAYS = 7;
const MAX_UID_BYTES = 128;

export interface JoinTarget {
  readonly listId: number;
  readonly uniqueId: string;
}

const mac = (secret: string, payload: Buffer) => createHmac('sha256', secret).update(DOMAIN).update(payload).digest().subarray(0, MAC_BYTES);

export function encodeJoinToken(secret: string, target: JoinTarget, now = Date.now()): string {
  const uid = Buffer.from(target.uniqueId, 'utf8');
  if (uid.length === 0 || uid.length > MAX_UID_BYTES) throw new Error('unique id unfit for a list-join token');
  const head = Buffer.alloc(8);
  head.writeUInt32BE(target.listId, 0);
  head.writeUInt32BE(Math.floor(now / 1000) + JOIN_TOKEN_DAYS * 86_400, 4);
  const payload = Buffer.concat([head, uid]);
  return Buffer.concat([payload, mac(secret, payload)]).toString('base64url');
}

/** The list and subscriber a token names, or null when it is malformed, forged or expired. */
export function decodeJoinToken(secret: string, token: string, now = Date.now()): JoinTarget | null {
  if (!/^[A-Za-z0-9_-]{32,250}$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length < 8 + 1 + MAC_BYTES || bytes.toString('base64url') !== token) return null;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(payload.length), mac(secret, payload))) return null;
  const listId = payload.readUInt32BE(0);
  if (payload.readUInt32BE(4) * 1000 < now || listId < 1 || listId > 2_147_483_647) return null;
  return { listId, uniqueId: payload.subarray(8).toString('utf8') };
}
