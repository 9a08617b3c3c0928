import type { AppContext } from '../context.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { resolvePublic } from '../shared/public-address.js';
import { toAtom } from '../shared/time.js';
import { TEST_EVENT_TYPE } from './events.js';
import { eventBody, postWebhook } from './post.js';
import { forgetWantedTypes, newEventId } from './record.js';
import { generateSecret, isValidSecret } from './signature.js';
import * as repo from './webhook.repository.js';
import type {
  DeliveriesQuery,
  DeliveryPage,
  Webhook,
  WebhookCreateBody,
  WebhookTestResult,
  WebhookUpdateBody,
  WebhookWithSecret,
} from './webhook.schemas.js';

const NOT_FOUND = 'Webhook endpoint not found.';

function toWebhook(row: repo.EndpointRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: toAtom(row.failingSince),
    created_at: toAtom(row.createdAt),
    updated_at: toAtom(row.updatedAt),
  };
}

/**
 * An http(s) URL without credentials whose host resolves to public addresses only (every address, not just one),
 * unless WEBHOOK_ALLOW_PRIVATE=1. The sender checks again at each delivery: DNS can change.
 */
async function checkUrl(ctx: AppContext, value: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ValidationError.field('url', 'The url must be an absolute http or https URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw ValidationError.field('url', 'The url must be an http or https URL.');
  if (url.username || url.password) throw ValidationError.field('url', 'The url must not carry a user name or password.');
  if (!ctx.config.webhookAllowPrivate) {
    try {
      await resolvePublic(url.hostname, { allowLoopback: false });
    } catch {
      throw ValidationError.field('url', 'The url must resolve to public addresses only: loopback, private and link-local addresses are refused.');
    }
  }
  return url.href;
}

async function found(ctx: AppContext, id: number): Promise<repo.EndpointRow> {
  const row = await repo.findEndpoint(ctx.db, id);
  if (!row) throw new NotFoundError(NOT_FOUND);
  return row;
}

export async function listWebhooks(ctx: AppContext): Promise<Webhook[]> {
  return (await repo.listEndpoints(ctx.db)).map(toWebhook);
}

export async function getWebhook(ctx: AppContext, id: number): Promise<Webhook> {
  return toWebhook(await found(ctx, id));
}

export async function createWebhook(ctx: AppContext, body: WebhookCreateBody): Promise<WebhookWithSecret> {
  if (body.secret !== undefined && !isValidSecret(body.secret)) {
    throw ValidationError.field('secret', 'The secret must be "whsec_" followed by 24 to 64 bytes in base64.');
  }
  const url = await checkUrl(ctx, body.url);
  const secret = body.secret ?? generateSecret();
  const row = await repo.insertEndpoint(ctx.db, { url, events: body.events, secret, enabled: body.enabled ?? true });
  forgetWantedTypes();
  return { ...toWebhook(row), secret };
}

export async function updateWebhook(ctx: AppContext, id: number, body: WebhookUpdateBody): Promise<Webhook> {
  await found(ctx, id);
  const url = body.url === undefined ? undefined : await checkUrl(ctx, body.url);
  // Enabled again by hand: the reason and the run of failures are history.
  const reenabled = body.enabled === true ? { disabledReason: null, failingSince: null } : {};
  const row = await repo.updateEndpoint(ctx.db, id, { url, events: body.events, enabled: body.enabled, ...reenabled });
  if (!row) throw new NotFoundError(NOT_FOUND);
  forgetWantedTypes();
  return toWebhook(row);
}

export async function deleteWebhook(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteEndpoint(ctx.db, id))) throw new NotFoundError(NOT_FOUND);
  forgetWantedTypes();
}

/** A new secret, effective for the next attempt of every delivery (the old one stops at once). */
export async function rotateSecret(ctx: AppContext, id: number): Promise<WebhookWithSecret> {
  await found(ctx, id);
  const secret = generateSecret();
  const row = await repo.updateEndpoint(ctx.db, id, { secret });
  if (!row) throw new NotFoundError(NOT_FOUND);
  return { ...toWebhook(row), secret };
}

export async function listDeliveries(ctx: AppContext, id: number, query: DeliveriesQuery): Promise<DeliveryPage> {
  await found(ctx, id);
  const limit = query.limit ?? 25;
  const rows = await repo.listDeliveries(ctx.db, id, { before: query.before ?? null, limit, status: query.status ?? null });
  const items = rows.map((d) => ({
    id: d.id,
    event_id: d.eventId,
    type: d.type,
    status: d.status as 'pending' | 'delivered' | 'failed',
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? toAtom(d.nextAttemptAt) : null,
    last_attempt_at: toAtom(d.lastAttemptAt),
    last_status: d.lastStatus,
    last_response: d.lastResponse,
    last_error: d.lastError,
    delivered_at: toAtom(d.deliveredAt),
    created_at: toAtom(d.createdAt),
  }));
  const last = items[items.length - 1];
  return { items, pagination: { limit, has_more: items.length === limit, next_cursor: items.length === limit && last ? last.id : null } };
}

/** Sends a `webhook.test` event now, signed as any other, and answers how it went; nothing is stored. */
export async function pingWebhook(ctx: AppContext, id: number): Promise<WebhookTestResult> {
  const row = await found(ctx, id);
  const eventId = newEventId();
  const body = eventBody(TEST_EVENT_TYPE, new Date(), { webhook_id: row.id });
  const result = await postWebhook({ url: row.url, secret: row.secret, id: eventId, body }, ctx.config.webhookAllowPrivate);
  const delivered = result.status !== null && result.status >= 200 && result.status < 300;
  return { webhook_id: eventId, delivered, status: result.status, error: result.error ?? (delivered ? null : `HTTP ${result.status}`) };
}
