import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { ForbiddenError } from '../shared/errors.js';
import { errorResponses } from '../shared/schemas.js';
import { databaseOldestWait, databaseWaiting, httpRequestDuration, registry, trackingBacklog } from '../shared/metrics.js';

/*
 * GET /metrics in Prometheus' text format. With METRICS_TOKEN set it asks for `Authorization: Bearer <token>`;
 * without, it answers loopback clients only (request.ip: behind a trusted proxy, the client the proxy names), so a
 * default installation never shows its figures to the network.
 */

/** What the areas add at each scrape (gauges read from the database); app.ts passes them in. */
export type MetricsCollector = () => Promise<void>;

export interface MetricsOptions {
  readonly config: Config;
  readonly database: Database;
  /** Opens and clicks answered and not yet written (tracking's buffer). */
  readonly backlog: () => number;
  readonly collectors: readonly MetricsCollector[];
}

export function registerMetrics(app: FastifyInstance, options: MetricsOptions): void {
  app.addHook('onResponse', async (request, reply) => {
    // The route's pattern (`/api/v2/lists/:listId`), never the path: ids would make a series per subscriber.
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe({ route, method: request.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['system'],
        operationId: 'metrics',
        summary: 'Prometheus metrics (text exposition format)',
        description:
          'With METRICS_TOKEN set, needs `Authorization: Bearer <METRICS_TOKEN>`; without it, answers loopback clients only. ' +
          'README.md, "Metrics", lists the series and alert rules.',
        security: [],
        produces: ['text/plain'],
        response: { 200: { type: 'string', description: 'Metrics in the Prometheus text format' }, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      allowed(request, options.config.metricsToken);
      await Promise.all(options.collectors.map((collect) => collect()));
      databaseWaiting.set(options.database.waiting());
      databaseOldestWait.set((options.database.waitingMs?.() ?? 0) / 1000);
      trackingBacklog.set(options.backlog());
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );
}

function allowed(request: FastifyRequest, token: string): void {
  if (token) {
    const given = Buffer.from(/^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '');
    const wanted = Buffer.from(token);
    if (given.length === wanted.length && timingSafeEqual(given, wanted)) return;
    throw new ForbiddenError('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
  }
  if (!isLoopback(request.ip)) throw new ForbiddenError('GET /metrics answers loopback clients only unless METRICS_TOKEN is set.');
}

function isLoopback(address: string): boolean {
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}
