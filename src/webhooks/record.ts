import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/client.js';
import type { WebhookEventType } from './events.js';
import { insertEvent, wantedEventTypes } from './webhook.repository.js';

/*
 * How areas report a change: `recordWebhookEvent(tx, type, payload)` inside the transaction that makes the change,
 * so the event commits (or rolls back) with it. Most installations have no endpoint, and most changes are wanted by
 * none, so the hot path asks a set of wanted types cached for REFRESH_MS (and forgotten at once when this process
 * changes an endpoint): when nobody wants the type, no statement is run. An endpoint created by another process is
 * seen within REFRESH_MS.
 */

const REFRESH_MS = 5000;
let wanted: { types: ReadonlySet<string>; at: number } | null = null;

/** Forget the cached wanted types (after an endpoint is created, changed or deleted). */
export function forgetWantedTypes(): void {
  wanted = null;
}

/** Whether some enabled endpoint wants the type (the cached answer): lets a hot path skip a transaction it needs only for an event. */
export async function isWebhookWanted(db: Executor, type: WebhookEventType): Promise<boolean> {
  if (!wanted || Date.now() - wanted.at > REFRESH_MS) {
    wanted = { types: new Set(await wantedEventTypes(db)), at: Date.now() };
  }
  return wanted.types.has(type);
}

/** A unique event id, the `webhook-id` every attempt and every endpoint gets: `msg_` and 24 random characters. */
export function newEventId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/**
 * Records one event in the caller's transaction, with a delivery for each enabled endpoint that wants its type.
 * Answers the event id, or null when no endpoint wants it (nothing written).
 */
export async function recordWebhookEvent(tx: Executor, type: WebhookEventType, payload: Record<string, unknown>): Promise<string | null> {
  if (!(await isWebhookWanted(tx, type))) return null;
  const id = newEventId();
  return (await insertEvent(tx, id, type, payload)) ? id : null;
}
