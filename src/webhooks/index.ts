/*
 * Outgoing webhooks (issue 27). A low area: every area that reports a change imports `recordWebhookEvent` from
 * here and calls it in its own transaction; webhooks imports no area. The sender is started by the processes that
 * send campaigns (server.ts with SEND_WORKER=on, worker.ts).
 */
export { WEBHOOK_EVENT_TYPES } from './events.js';
export type { WebhookEventType } from './events.js';
export { isWebhookWanted, recordWebhookEvent } from './record.js';
export { startWebhookSender } from './sender.js';
export type { WebhookSender } from './sender.js';
export { collectWebhookMetrics } from './metrics.js';
