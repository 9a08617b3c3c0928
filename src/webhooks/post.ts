import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolvePublic, type ResolvedAddress } from '../shared/public-address.js';
import { sign } from './signature.js';

/** How long one delivery may take, connection to last byte. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The part of a receiver's answer kept on the delivery record. */
const RESPONSE_KEPT = 1000;

export interface PostResult {
  /** The HTTP status, or null when no answer came (refused address, connection error, timeout). */
  readonly status: number | null;
  readonly response: string | null;
  readonly error: string | null;
}

export interface WebhookMessage {
  readonly url: string;
  readonly secret: string;
  readonly id: string;
  readonly body: string;
}

/**
 * POSTs one signed message. Unless private addresses are allowed, the host is resolved now (DNS may have changed
 * since the endpoint was registered), every address must be public, and the connection goes to the address checked.
 * Redirects are not followed: a 3xx is a failed attempt.
 */
export async function postWebhook(message: WebhookMessage, allowPrivate: boolean): Promise<PostResult> {
  const url = new URL(message.url);
  let pinned: ResolvedAddress | null = null;
  if (!allowPrivate) {
    try {
      pinned = await resolvePublic(url.hostname, { allowLoopback: false });
    } catch {
      return { status: null, response: null, error: 'The endpoint does not resolve to public addresses only.' };
    }
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': 'Mailroom-Webhooks',
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(message.secret, message.id, timestamp, message.body),
  };
  const lookup: LookupFunction | undefined = pinned
    ? (_hostname, options, callback) => {
        if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
        else callback(null, pinned.address, pinned.family);
      }
    : undefined;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve) => {
    const req = request(
      url,
      { method: 'POST', headers, lookup, agent: false, signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) },
      (res: IncomingMessage) => {
        let kept = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (kept.length < RESPONSE_KEPT) kept += chunk.slice(0, RESPONSE_KEPT - kept.length);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, response: kept, error: null }));
        res.on('error', (err) => resolve({ status: res.statusCode ?? 0, response: kept, error: describe(err) }));
      },
    );
    req.on('error', (err) => resolve({ status: null, response: null, error: describe(err) }));
    req.end(message.body);
  });
}

function describe(err: Error): string {
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return `No answer within ${DELIVERY_TIMEOUT_MS / 1000} s.`;
  const code = (err as NodeJS.ErrnoException).code;
  return code ? `Connection failed (${code}).` : 'Connection failed.';
}

/** The JSON body of an event, per Standard Webhooks: `{type, timestamp, data}`. */
export function eventBody(type: string, createdAt: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
}
