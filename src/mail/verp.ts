import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * VERP (BOUNCE_VERP=1, issue 14): each campaign message's envelope sender carries its delivery, signed, as
 * `<bounce local part>+<token>@<bounce domain>`, so that the bounce, which comes back to that address, names the
 * delivery whatever the remote server kept of the message. The token is 24 characters of lower-case base32
 * (RFC 4648, no padding): the delivery id in 6 bytes, then the first 9 bytes of HMAC-SHA256 under the installation's
 * link secret with a label of its own (so it is no click or unsubscribe token). Lower case and a case-insensitive
 * alphabet because mail systems may change the case of a local part; 72 bits of MAC because a forger gets one try
 * per bounce he sends.
 */

const LABEL = Buffer.from('mailroom/verp\0');
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_BYTES = 6;
const MAC_BYTES = 9;
/** Delivery ids up to 2^48 fit: no installation sends that many messages. */
const MAX_ID = 2 ** (8 * ID_BYTES) - 1;
export const VERP_TOKEN_LENGTH = ((ID_BYTES + MAC_BYTES) * 8) / 5;
/** `+<token>@` anywhere in a header value: a fixed-length class run, no backtracking to speak of. */
const IN_ADDRESS = new RegExp(`\\+([a-z2-7]{${VERP_TOKEN_LENGTH}})@`, 'gi');

function mac(secret: string, id: Buffer): Buffer {
  return createHmac('sha256', secret).update(LABEL).update(id).digest().subarray(0, MAC_BYTES);
}

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

function unbase32(text: string): Buffer | null {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return null;
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The token of a delivery; null for an id that does not fit. */
export function encodeVerpToken(secret: string, deliveryId: number): string | null {
  if (!Number.isSafeInteger(deliveryId) || deliveryId < 1 || deliveryId > MAX_ID) return null;
  const id = Buffer.alloc(ID_BYTES);
  id.writeUIntBE(deliveryId, 0, ID_BYTES);
  return base32(Buffer.concat([id, mac(secret, id)]));
}

/** The delivery id a token names, or null when it is not one of ours (forged, altered, or another secret's). */
export function decodeVerpToken(secret: string, token: string): number | null {
  if (token.length !== VERP_TOKEN_LENGTH) return null;
  const bytes = unbase32(token.toLowerCase());
  if (!bytes || bytes.length !== ID_BYTES + MAC_BYTES) return null;
  const id = bytes.subarray(0, ID_BYTES);
  if (!timingSafeEqual(bytes.subarray(ID_BYTES), mac(secret, id))) return null;
  const deliveryId = id.readUIntBE(0, ID_BYTES);
  return deliveryId > 0 ? deliveryId : null;
}

/** A function making the envelope sender of a delivery from BOUNCE_ADDRESS (`bounces@x` → `bounces+<token>@x`). */
export function verpSender(secret: string, bounceAddress: string): (deliveryId: number) => string | null {
  const at = bounceAddress.lastIndexOf('@');
  const local = bounceAddress.slice(0, at);
  const domain = bounceAddress.slice(at + 1);
  return (deliveryId) => {
    const token = encodeVerpToken(secret, deliveryId);
    return token === null ? null : `${local}+${token}@${domain}`;
  };
}

/** The first delivery named by a valid token in these addresses (header values: `Name <a+token@b>`, `rfc822; …`). */
export function deliveryOfAddresses(secret: string, addresses: readonly string[]): number | null {
  for (const value of addresses) {
    for (const m of value.matchAll(IN_ADDRESS)) {
      const id = decodeVerpToken(secret, m[1]!);
      if (id !== null) return id;
    }
  }
  return null;
}
