import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { ServiceUnavailableError } from '../shared/errors.js';
import { loadShedTotal } from '../shared/metrics.js';
import { announcesBody } from './request-limits.js';

/** Requests counted in `inFlight`, so each is let go exactly once (a response, or the client going away first). */
const counted = new WeakSet<FastifyRequest>();

/**
 * Load shedding on the embedded database. PGlite has one connection: while it is held (a transaction of a send batch or
 * an import, a slow statement) every request that needs it waits in the house, without bound, until clients give up.
 * A request is answered at once with 503 and Retry-After (it costs next to nothing) when
 * - `PGLITE_MAX_REQUESTS` requests are already in the house, or
 * - the database's oldest unanswered statement has waited more than `PGLITE_MAX_WAIT_MS`: on a slow or busy machine
 *   64 requests can be tens of seconds of work, and a count alone let admitted requests wait past clients' timeouts
 *   (measured: 149 of 6,874 at 200 connections, load 20 on 2 cores).
 * A request enters the house once it is read whole: one without a body at its headers, one with a body when the body
 * has arrived (preValidation). A client that sends headers and holds back the body waits outside, so it takes no one
 * else's place (issue 23: 64 such connections made every other request 503 for as long as they were held); it is
 * refused at its headers, though, when the house is already full, and cut off by REQUEST_IDLE_TIMEOUT_MS
 * (request-limits.ts). Routes marked `noDatabase` (/healthz, the open pixel) are never shed: a busy process is alive,
 * and the pixel is always answered.
 * The database runs on a thread of its own (db/pglite-thread.ts), so this thread reads requests while it works; when
 * it ran here, requests waited unread in their sockets and the kernel's accept queue, before any hook could see them.
 * PostgreSQL takes the load in its own processes and is not limited here (DATABASE_POOL_SIZE bounds its connections).
 */
export function registerOverloadShedding(app: FastifyInstance, config: Config, database: Database): void {
  const limit = config.pgliteMaxRequests;
  const maxWaitMs = config.pgliteMaxWaitMs;
  const waitingMs = database.waitingMs?.bind(database);
  if (config.databaseUrl || (limit === 0 && maxWaitMs === 0)) return;
  let inFlight = 0;
  const release = (request: FastifyRequest) => {
    if (counted.delete(request)) inFlight--;
  };
  const refuseWhenOverloaded = () => {
    const full = limit > 0 && inFlight >= limit;
    const behind = maxWaitMs > 0 && waitingMs !== undefined && waitingMs() > maxWaitMs;
    if (full || behind) {
      loadShedTotal.inc();
      throw new ServiceUnavailableError('The service is overloaded: try again shortly.', 1);
    }
  };
  const admit = (request: FastifyRequest) => {
    refuseWhenOverloaded();
    inFlight++;
    counted.add(request);
  };
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.noDatabase) return;
    if (announcesBody(request)) refuseWhenOverloaded();
    else admit(request);
  });
  // After the body was read and parsed (the first hook after it), before validation and the handler.
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.noDatabase || counted.has(request) || !announcesBody(request)) return;
    admit(request);
  });
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));
}
