import { createHash } from 'node:crypto';

/*
 * The signed tokens a mail carries, made fast: click-tracking tokens exactly as tracking/link-token.ts's
 * encodeLinkToken makes them, unsubscribe tokens exactly as subscription/unsubscribe-token.ts's encodeUnsubscribeToken
 * does (test/sending/compose-units.test.ts holds each pair together). A mail carries one per link plus one unsubscribe
 * token, and node's createHmac costs about 3 µs a call on the development VM, which alone would cap rendering near
 * 20,000 mails a second for a campaign with a dozen links.
 *
 * HMAC(K, m) = H((K ^ opad) || H((K ^ ipad) || m)). The hash states after the two key blocks are the same for every
 * token, so they are computed once; a message of up to 55 bytes then costs exactly two SHA-256 compressions (inner:
 * message and padding in one block; outer: the 32-byte inner digest and padding in one block), done here on
 * Int32Arrays.
 */

const K = Int32Array.from(
  [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ].map((k) => k | 0),
);
const IV = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19].map((v) => v | 0));

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** One SHA-256 compression (FIPS 180-4 §6.2.2): `out` = `state` advanced by the 16-word `block`. */
function compress(state: Int32Array, block: Int32Array, w: Int32Array, out: Int32Array): void {
  for (let i = 0; i < 16; i++) w[i] = block[i]!;
  for (let i = 16; i < 64; i++) {
    const w15 = w[i - 15]!;
    const w2 = w[i - 2]!;
    const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  out[0] = (state[0]! + a) | 0;
  out[1] = (state[1]! + b) | 0;
  out[2] = (state[2]! + c) | 0;
  out[3] = (state[3]! + d) | 0;
  out[4] = (state[4]! + e) | 0;
  out[5] = (state[5]! + f) | 0;
  out[6] = (state[6]! + g) | 0;
  out[7] = (state[7]! + h) | 0;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Four characters for three bytes held in the low 24 bits of `n`. */
function quad(n: number): string {
  return B64URL[(n >>> 18) & 63]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]! + B64URL[n & 63]!;
}

interface KeyedHash {
  readonly inner: Int32Array;
  readonly outer: Int32Array;
  readonly w: Int32Array;
  readonly block: Int32Array;
  readonly digest: Int32Array;
}

function keyed(secret: string): KeyedHash {
  let key = Buffer.from(secret, 'utf8');
  if (key.length > 64) key = createHash('sha256').update(key).digest();
  const padded = Buffer.alloc(64);
  key.copy(padded);
  const innerKey = new Int32Array(16);
  const outerKey = new Int32Array(16);
  for (let i = 0; i < 16; i++) {
    const word = padded.readInt32BE(i * 4);
    innerKey[i] = word ^ 0x36363636;
    outerKey[i] = word ^ 0x5c5c5c5c;
  }
  const h = { inner: new Int32Array(8), outer: new Int32Array(8), w: new Int32Array(64), block: new Int32Array(16), digest: new Int32Array(8) };
  compress(IV, innerKey, h.w, h.inner);
  compress(IV, outerKey, h.w, h.outer);
  return h;
}

/** Finishes an HMAC whose inner block (message, 0x80, zeros, bit length) is in `h.block`; the MAC in `h.digest`. */
function finish(h: KeyedHash): Int32Array {
  compress(h.inner, h.block, h.w, h.digest);
  // Outer: 64 key bytes, then the 32-byte inner digest, 0x80, zeros, and the length in bits (96 * 8).
  h.block.fill(0);
  h.block.set(h.digest);
  h.block[8] = 0x80000000 | 0;
  h.block[15] = 96 * 8;
  compress(h.outer, h.block, h.w, h.digest);
  return h.digest;
}

/** A function making the click-tracking token of (link, subscriber) under `secret`, as encodeLinkToken does. */
export function linkTokenSigner(secret: string): (linkId: number, subscriberId: number) => string {
  const h = keyed(secret);
  return (linkId, subscriberId) => {
    // Inner: 64 key bytes, then the 8-byte message, 0x80, zeros, and the length in bits (72 * 8).
    h.block.fill(0);
    h.block[0] = linkId | 0;
    h.block[1] = subscriberId | 0;
    h.block[2] = 0x80000000 | 0;
    h.block[15] = 72 * 8;
    const digest = finish(h);
    const m0 = digest[0]!;
    const m1 = digest[1]!;
    const m2 = digest[2]!;
    // 18 bytes → 24 characters: link id, subscriber id and the MAC's first 10 bytes as six 3-byte groups.
    return (
      quad(linkId >>> 8) +
      quad(((linkId & 0xff) << 16) | (subscriberId >>> 16)) +
      quad(((subscriberId & 0xffff) << 8) | (m0 >>> 24)) +
      quad(m0 & 0xffffff) +
      quad(m1 >>> 8) +
      quad(((m1 & 0xff) << 16) | (m2 >>> 16))
    );
  };
}

const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Eight hex characters for a 32-bit word, by table (toString and padStart cost more than the MAC's rounds). */
const hex32 = (n: number) => HEX_BYTE[(n >>> 24) & 255]! + HEX_BYTE[(n >>> 16) & 255]! + HEX_BYTE[(n >>> 8) & 255]! + HEX_BYTE[n & 255]!;

/** Tag of the Message-ID MAC's input ("MsgI"): 12 bytes where a link token's are 8, so neither can stand for the other. */
const MESSAGE_ID_TAG = 0x4d736749;

/**
 * A function making the unique part of a delivery's Message-ID (issue 23): 32 hex characters, the first 128 bits of
 * HMAC-SHA256 of the delivery id under `secret`. Derived, not random, so every attempt of a delivery carries the same
 * Message-ID (a relay that queued a message but died before confirming it gets the same message again, and receivers
 * can merge the copies), and a returned Message-ID proves the bounce is of that delivery (bounce-decision.ts).
 */
export function messageIdSigner(secret: string): (deliveryId: number) => string {
  const h = keyed(secret);
  return (deliveryId) => {
    // Inner: 64 key bytes, then tag and the id as 8 bytes (ids fit 53 bits), 0x80, zeros, and the length in bits.
    h.block.fill(0);
    h.block[0] = MESSAGE_ID_TAG;
    h.block[1] = Math.floor(deliveryId / 0x100000000) | 0;
    h.block[2] = deliveryId >>> 0;
    h.block[3] = 0x80000000 | 0;
    h.block[15] = 76 * 8;
    const digest = finish(h);
    return hex32(digest[0]!) + hex32(digest[1]!) + hex32(digest[2]!) + hex32(digest[3]!);
  };
}

/** unsubscribe-token.ts's MAC domain label and its "32-hex unique id" kind. */
const UNSUBSCRIBE_DOMAIN = Buffer.from('mailroom/unsubscribe\0');
const HEX_UID = /^[0-9a-f]{32}$/;

/**
 * A function making the unsubscribe token of a campaign's recipient, as encodeUnsubscribeToken does, for the usual
 * 32-hex unique ids; null for any other unique id (the caller then uses unsubscribe-token.ts itself).
 */
export function unsubscribeTokenSigner(secret: string, campaignId: number): (uniqueId: string) => string | null {
  return subscriberTokenSigner(secret, UNSUBSCRIBE_DOMAIN, campaignId);
}

/**
 * The same for any subscriber token of unsubscribe-token.ts's layout (encodeSubscriberToken): `domain` (at most 34
 * bytes, so that the message stays one block) and one number fixed for the whole campaign.
 */
export function subscriberTokenSigner(secret: string, domain: Buffer, number: number): (uniqueId: string) => string | null {
  if (domain.length > 34) throw new Error('domain label too long for one block');
  const h = keyed(secret);
  // MAC input: domain label, kind 1, the number, the unique id's 16 bytes — at most 55 bytes, one block.
  const message = Buffer.alloc(64);
  domain.copy(message, 0);
  const payloadAt = domain.length;
  message.writeUInt8(1, payloadAt);
  message.writeUInt32BE(number, payloadAt + 1);
  const end = payloadAt + 5 + 16;
  message[end] = 0x80;
  message.writeUInt32BE(end * 8 + 512, 60);
  const token = Buffer.alloc(5 + 16 + 12);
  message.copy(token, 0, payloadAt, payloadAt + 5);
  return (uniqueId) => {
    if (!HEX_UID.test(uniqueId)) return null;
    message.write(uniqueId, payloadAt + 5, 16, 'hex');
    token.write(uniqueId, 5, 16, 'hex');
    for (let i = 0; i < 16; i++) h.block[i] = message.readInt32BE(i * 4);
    const mac = finish(h);
    token.writeInt32BE(mac[0]!, 21);
    token.writeInt32BE(mac[1]!, 25);
    token.writeInt32BE(mac[2]!, 29);
    return token.toString('base64url');
  };
}
