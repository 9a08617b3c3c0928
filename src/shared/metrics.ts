import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/*
 * The process's Prometheus metrics (GET /metrics, plugins/metrics.ts), in one registry. Counters are kept where the
 * thing happens (the sender, the tracking buffer, bounce processing, the load shedder) by one call each; gauges of
 * what waits in the database are read at scrape time by the plugin. Names follow Prometheus' conventions: the
 * `mailroom_` prefix, base units (seconds, bytes), `_total` on counters. One registry per process: several apps in
 * one process (tests) add to the same counters.
 */

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'mailroom_' });

export const httpRequestDuration = new Histogram({
  name: 'mailroom_http_request_duration_seconds',
  help: 'HTTP requests by route (the route pattern, not the path), method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const deliveriesTotal = new Counter({
  name: 'mailroom_deliveries_total',
  help: 'Campaign deliveries by outcome: sent, failed (for good), retry (a temporary failure, tried again later); rate(…{outcome="sent"}[1m]) is messages sent per second',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const smtpConnectionErrorsTotal = new Counter({
  name: 'mailroom_smtp_connection_errors_total',
  help: 'Connections to the SMTP relay that failed: refused, timed out, TLS or login refused',
  registers: [registry],
});

export const trackingEventsTotal = new Counter({
  name: 'mailroom_tracking_events_total',
  help: 'Opens and clicks by kind and what became of them: recorded, unmatched (no such delivery), limited (over the per-address limit), shed (buffer full)',
  labelNames: ['kind', 'result'] as const,
  registers: [registry],
});

export const trackingFlushDuration = new Histogram({
  name: 'mailroom_tracking_flush_duration_seconds',
  help: 'Time to write one batch of buffered opens and clicks',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const bouncesTotal = new Counter({
  name: 'mailroom_bounces_total',
  help: 'Bounce messages processed, by outcome',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const loadShedTotal = new Counter({
  name: 'mailroom_load_shed_total',
  help: 'Requests answered 503 at once by the load shedder of the embedded database (only there)',
  registers: [registry],
});

/** Gauges read at scrape time; plugins/metrics.ts sets them from the database and the process. */
export const deliveriesWaiting = new Gauge({
  name: 'mailroom_deliveries_waiting',
  help: 'Deliveries queued and not yet sent, by the status of their campaign',
  labelNames: ['campaign_status'] as const,
  registers: [registry],
});

export const trackingBacklog = new Gauge({
  name: 'mailroom_tracking_backlog',
  help: 'Opens and clicks answered and waiting in this process to be written',
  registers: [registry],
});

export const databaseWaiting = new Gauge({
  name: 'mailroom_database_pool_waiting',
  help: 'Requests waiting for a database connection (PostgreSQL pool) or statements queued for the embedded database',
  registers: [registry],
});

export const databaseOldestWait = new Gauge({
  name: 'mailroom_database_oldest_wait_seconds',
  help: 'How long the oldest unanswered statement has waited (embedded database only; 0 on PostgreSQL)',
  registers: [registry],
});

export const webhooksPending = new Gauge({
  name: 'mailroom_webhooks_pending',
  help: 'Webhook deliveries waiting to be sent or tried again',
  registers: [registry],
});

export const emailSearchBehind = new Gauge({
  name: 'mailroom_email_search_pending_ids',
  help: 'Subscriber ids whose address the e-mail search index has not yet taken in (folded in the background; searches stay exact)',
  registers: [registry],
});

export const mailQueueWaiting = new Gauge({
  name: 'mailroom_mail_queue_waiting',
  help: 'System mail to one person (confirmation, list-join, address change, password reset) waiting to leave, by whether an attempt has failed',
  labelNames: ['state'] as const,
  registers: [registry],
});
