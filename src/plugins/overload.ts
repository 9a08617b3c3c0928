import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ServiceUnavailableError } from '../shared/errors.js';

/** Requests counted in `inFlight`, so each is let go exactly once (a response, or the client going away first). */
const counted = new WeakSet<FastifyRequest>();

/**
 * Load shedding on the embedded database. PGlite has one connection: while it is held (a transaction of a send batch or
 * an import, a slow statement) every request that needs it waits in the house, without bound, until clients give up.
 * Past `PGLITE_MAX_REQUESTS` requests at once, a new one is answered at once with 503 and Retry-After (before its body
 * is read: it costs next to nothing), so the ones admitted stay fast and the rest know to come back.
 * Measured limit of this: statements that do not wait run synchronously on the thread that also reads requests, so
 * when that thread is saturated requests wait unread in their sockets, before any hook sees them (at 200 connections on
 * two busy cores, never more than 4 were in the house) — README "When to move to PostgreSQL". Measured where they wait:
 * new connections are accepted about one per event-loop turn, and a busy turn lasts 100-400 ms, so connections opened
 * under load sit 10-20 s in the kernel's accept queue (ss showed 63 there); accepted ones are served fairly.
 * /healthz is always answered: a busy process is alive, and an orchestrator must not restart it for being busy.
 * PostgreSQL takes the load in its own processes and is not limited here (DATABASE_POOL_SIZE bounds its connections).
 */
export function registerOverloadShedding(app: FastifyInstance, config: Config): void {
  const limit = config.pgliteMaxRequests;
  if (config.databaseUrl || limit === 0) return;
  let inFlight = 0;
  const release = (request: FastifyRequest) => {
    if (counted.delete(request)) inFlight--;
  };
  app.addHook('onRequest', async (request) => {
    if (request.url === '/healthz') return;
    if (inFlight >= limit) throw new ServiceUnavailableError('The service is overloaded: try again shortly.', 1);
    inFlight++;
    counted.add(request);
  });
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));
}
