import { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { TooManyRequestsError } from '../shared/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route answers from memory and never waits for the database (/healthz, the open pixel): neither load shedding
     * nor the per-client cap applies, so it is always answered (the pixel must be: specification row 19).
     */
    noDatabase?: boolean;
  }
}

/*
 * What one client may hold of the service, whatever the database (issue 23: 64 connections that sent headers with a
 * Content-Length and never the body held every request slot of the embedded database):
 * - a body that stops arriving for REQUEST_IDLE_TIMEOUT_MS is cut off (the connection is closed). The headers must
 *   arrive within that time, and a whole request within REQUEST_TIMEOUT_MS: node's own headersTimeout and
 *   requestTimeout, set in app.ts. A slow upload that keeps sending is not idle, so only the second bounds it.
 * - CLIENT_MAX_REQUESTS requests in flight per client address (Fastify's request.ip, so X-Forwarded-For as
 *   TRUST_PROXY allows; an IPv6 address counts by its /64, which one subscriber line usually holds whole), from the
 *   headers to the answer: more get 429 with Retry-After at once, and only that address does. A request is held from
 *   its headers, so stalled bodies count against their own sender's allowance, never the others'.
 */
export function registerRequestLimits(app: FastifyInstance, config: Config): void {
  const { idleTimeoutMs, clientMaxRequests } = config.requests;
  const inFlight = new Map<string, number>();

  app.addHook('onRequest', async (request, reply) => {
    armBodyTimeout(app, request, idleTimeoutMs);
    if (clientMaxRequests === 0 || request.routeOptions.config.noDatabase) return;
    const key = clientKey(request.ip);
    const held = inFlight.get(key) ?? 0;
    if (held >= clientMaxRequests) {
      throw new TooManyRequestsError('Too many requests in progress from your address: try again shortly.', 1);
    }
    inFlight.set(key, held + 1);
    // 'close' of the response comes once, whether it was sent or the connection went first (an idle body cut off).
    reply.raw.once('close', () => {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    });
  });
}

/** Whether the request announces a body (RFC 9112 § 6.3): a non-zero Content-Length or any Transfer-Encoding. */
export function announcesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Until the request's body has arrived, its socket times out after `ms` without a byte (node then destroys it: nothing
 * listens for the timeout). Disarmed once the body has ended, unless node has since set the socket's timeout itself
 * (keep-alive after an answer sent before the body was read).
 */
function armBodyTimeout(app: FastifyInstance, request: FastifyRequest, ms: number): void {
  const raw = request.raw;
  const socket = raw.socket as Socket | undefined;
  // app.inject's requests have no real socket, and a request without a body has nothing left to wait for.
  if (!(socket instanceof Socket) || raw.complete || !announcesBody(request)) return;
  socket.setTimeout(ms);
  raw.once('end', () => {
    if (socket.timeout === ms) socket.setTimeout(app.server.timeout);
  });
}

/** The key a client's requests are counted under: its address, or the /64 of an IPv6 address. */
export function clientKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const address = ip.split('%')[0]!.toLowerCase();
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  const [head = '', tail] = address.split('::', 2);
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
