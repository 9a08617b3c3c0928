import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ServiceUnavailableError } from '../shared/errors.js';

/** Requests counted in `inFlight`, so each is let go exactly once (a response, or the client going away first). */
const counted = new WeakSet<FastifyRequest>();

/**
 * Load shedding on the embedded database. PGlite runs every statement on this process's one thread: past what it can
 * take, every request in the house waits for all the others, and at 200 connections 3.9 % got no answer within 10 s.
 * Past `PGLITE_MAX_REQUESTS` requests at once, a new one is answered at once with 503 and Retry-After (before its body
 * is read: it costs next to nothing), so the ones admitted stay fast and the rest know to come back. /healthz is
 * always answered: a busy process is alive, and an orchestrator must not restart it for being busy. PostgreSQL takes
 * the load in its own processes and is not limited here (DATABASE_POOL_SIZE bounds its connections).
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
