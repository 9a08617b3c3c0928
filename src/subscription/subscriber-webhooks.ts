import type { Executor } from '../db/client.js';
import type { subscribers } from '../db/schema/index.js';
import { recordWebhookEvent } from '../webhooks/index.js';

/*
 * Webhook events about subscribers (issue 27), recorded by the repository functions every path goes through (the
 * API, sign-up pages, list joins, confirmation links, the blacklist), in the caller's transaction. Each costs
 * nothing when no endpoint wants its type. Imports report no events: they write in bulk, and a receiver that wants
 * them reads the import's result.
 */

type Row = typeof subscribers.$inferSelect;

/** What every subscriber event carries. */
export function subscriberData(row: Row): Record<string, unknown> {
  return {
    id: row.id,
    email: row.email,
    unique_id: row.uniqueId,
    confirmed: row.confirmed,
    blacklisted: row.blacklisted,
    html_email: row.htmlEmail,
    disabled: row.disabled,
  };
}

export async function reportCreated(tx: Executor, rows: readonly Row[]): Promise<void> {
  for (const row of rows) await recordWebhookEvent(tx, 'subscriber.created', { subscriber: subscriberData(row) });
}

export async function reportConfirmed(tx: Executor, rows: readonly Row[]): Promise<void> {
  for (const row of rows) await recordWebhookEvent(tx, 'subscriber.confirmed', { subscriber: subscriberData(row) });
}

export async function reportBlacklisted(tx: Executor, rows: readonly Row[]): Promise<void> {
  for (const row of rows) await recordWebhookEvent(tx, 'subscriber.blacklisted', { subscriber: subscriberData(row) });
}

/** Columns whose change is a profile change (`subscriber.updated`), by their API names. */
const PROFILE: [keyof Row, string][] = [
  ['email', 'email'],
  ['htmlEmail', 'html_email'],
  ['disabled', 'disabled'],
  ['confirmed', 'confirmed'],
  ['blacklisted', 'blacklisted'],
];

/**
 * After an update with `values`: `subscriber.confirmed` / `subscriber.blacklisted` when those flags were set, and
 * `subscriber.updated` naming the profile fields changed (callers pass only what changes).
 */
export async function reportUpdated(tx: Executor, row: Row, values: Partial<Row>): Promise<void> {
  if (values.confirmed === true) await reportConfirmed(tx, [row]);
  if (values.blacklisted === true) await reportBlacklisted(tx, [row]);
  const changed = PROFILE.filter(([column]) => values[column] !== undefined).map(([, name]) => name);
  if (changed.length > 0) await recordWebhookEvent(tx, 'subscriber.updated', { subscriber: subscriberData(row), changed });
}
