import { and, eq, lt, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, intOrNull, text, textOrNull, timestamp, timestampOrNull, type Row } from '../db/row.js';
import { webhookEndpoints } from '../db/schema/index.js';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** The event types some enabled endpoint wants. */
export async function wantedEventTypes(db: Executor): Promise<string[]> {
  return queryRows(db, sql`select distinct unnest(events) as t from webhook_endpoints where enabled`, (r) => text(r, 't'));
}

/**
 * The event and one delivery per enabled endpoint wanting its type, in one statement; nothing when none wants it
 * (an endpoint disabled since the cache was filled). Answers whether anything was written.
 */
export async function insertEvent(db: Executor, id: string, type: string, payload: Record<string, unknown>): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`with wanting as (select id from webhook_endpoints where enabled and ${type} = any(events)),
      event as (
        insert into webhook_events (id, type, payload)
        select ${id}, ${type}, ${JSON.stringify(payload)}::jsonb where exists (select 1 from wanting)
        returning id)
      insert into webhook_deliveries (endpoint_id, event_id)
      select wanting.id, event.id from wanting, event
      returning id`,
    (r) => int(r, 'id'),
  );
  return rows.length > 0;
}

export async function listEndpoints(db: Executor): Promise<EndpointRow[]> {
  return db.select().from(webhookEndpoints).orderBy(webhookEndpoints.id);
}

export async function findEndpoint(db: Executor, id: number): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

export async function insertEndpoint(db: Executor, values: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values(values).returning();
  return row!;
}

export async function updateEndpoint(
  db: Executor,
  id: number,
  values: Partial<typeof webhookEndpoints.$inferInsert>,
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}

export async function deleteEndpoint(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

export interface ClaimedDelivery {
  readonly id: number;
  readonly endpointId: number;
  readonly url: string;
  readonly secret: string;
  readonly attempts: number;
  readonly eventId: string;
  readonly type: string;
  readonly payload: unknown;
  readonly createdAt: Date;
}

const toClaimed = (r: Row): ClaimedDelivery => ({
  id: int(r, 'id'),
  endpointId: int(r, 'endpoint_id'),
  url: text(r, 'url'),
  secret: text(r, 'secret'),
  attempts: int(r, 'attempts'),
  eventId: text(r, 'event_id'),
  type: text(r, 'type'),
  payload: r['payload'],
  createdAt: timestamp(r, 'created_at'),
});

/**
 * Claims up to `limit` due pending deliveries of enabled endpoints with FOR UPDATE SKIP LOCKED. The lease is the
 * due time itself: a claimed row's next_attempt_at moves `leaseSeconds` ahead, so no other worker takes it, and if
 * this one dies the row is simply due again then (at least once).
 */
export async function claimDue(db: Executor, limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
  return queryRows(
    db,
    sql`with due as (
        select d.id from webhook_deliveries d
        join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
        where d.status = 'pending' and d.next_attempt_at <= now()
        order by d.next_attempt_at
        limit ${limit}
        for update of d skip locked),
      claimed as (
        update webhook_deliveries d
        set attempts = d.attempts + 1,
            lease_until = now() + make_interval(secs => ${leaseSeconds}),
            next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
        from due where d.id = due.id
        returning d.id, d.endpoint_id, d.event_id, d.attempts)
      select c.id, c.endpoint_id, c.event_id, c.attempts, e.url, e.secret, ev.type, ev.payload, ev.created_at
      from claimed c join webhook_endpoints e on e.id = c.endpoint_id join webhook_events ev on ev.id = c.event_id`,
    toClaimed,
  );
}

export interface AttemptOutcome {
  readonly status: number | null;
  readonly response: string | null;
  readonly error: string | null;
}

export async function markDelivered(db: Executor, id: number, outcome: AttemptOutcome): Promise<void> {
  await db.execute(sql`
    with d as (
      update webhook_deliveries set status = 'delivered', delivered_at = now(), last_attempt_at = now(), lease_until = null,
        last_status = ${outcome.status}, last_response = ${outcome.response}, last_error = null
      where id = ${id} returning endpoint_id)
    update webhook_endpoints set failing_since = null where id in (select endpoint_id from d) and failing_since is not null`);
}

/**
 * A failed attempt: again at `retryAt`, or `failed` for good (`giveUp`). The endpoint's run of failures starts now
 * if none is running.
 */
export async function markFailed(db: Executor, id: number, outcome: AttemptOutcome, retryAt: Date | null): Promise<void> {
  await db.execute(sql`
    with d as (
      update webhook_deliveries set status = ${retryAt ? 'pending' : 'failed'},
        next_attempt_at = coalesce(${retryAt?.toISOString() ?? null}::timestamptz, next_attempt_at),
        last_attempt_at = now(), lease_until = null,
        last_status = ${outcome.status}, last_response = ${outcome.response}, last_error = ${outcome.error}
      where id = ${id} returning endpoint_id)
    update webhook_endpoints set failing_since = now() where id in (select endpoint_id from d) and failing_since is null`);
}

/** Disables the endpoints failing since before `since`; answers them (for the notice). */
export async function disableFailing(db: Executor, since: Date, reason: string): Promise<{ id: number; url: string }[]> {
  const rows = await db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.enabled, true), lt(webhookEndpoints.failingSince, since)))
    .returning({ id: webhookEndpoints.id, url: webhookEndpoints.url });
  return rows;
}

/** Removes delivered or failed events older than `before` that no delivery still waits for. */
export async function deleteOldEvents(db: Executor, before: Date): Promise<void> {
  await db.execute(sql`
    delete from webhook_events ev where ev.created_at < ${before.toISOString()}::timestamptz
      and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.status = 'pending')`);
}

export async function countPending(db: Executor): Promise<number> {
  const [row] = await queryRows(db, sql`select count(*)::int as n from webhook_deliveries where status = 'pending'`, (r) => int(r, 'n'));
  return row ?? 0;
}

export interface DeliveryListRow {
  readonly id: number;
  readonly eventId: string;
  readonly type: string;
  readonly status: string;
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  readonly lastAttemptAt: Date | null;
  readonly lastStatus: number | null;
  readonly lastResponse: string | null;
  readonly lastError: string | null;
  readonly deliveredAt: Date | null;
  readonly createdAt: Date;
}

const toDelivery = (r: Row): DeliveryListRow => ({
  id: int(r, 'id'),
  eventId: text(r, 'event_id'),
  type: text(r, 'type'),
  status: text(r, 'status'),
  attempts: int(r, 'attempts'),
  nextAttemptAt: timestamp(r, 'next_attempt_at'),
  lastAttemptAt: timestampOrNull(r, 'last_attempt_at'),
  lastStatus: intOrNull(r, 'last_status'),
  lastResponse: textOrNull(r, 'last_response'),
  lastError: textOrNull(r, 'last_error'),
  deliveredAt: timestampOrNull(r, 'delivered_at'),
  createdAt: timestamp(r, 'created_at'),
});

/** One page of an endpoint's deliveries, newest first, after the keyset `before` (a delivery id). */
export async function listDeliveries(
  db: Executor,
  endpointId: number,
  page: { before: number | null; limit: number; status: string | null },
): Promise<DeliveryListRow[]> {
  return queryRows(
    db,
    sql`select d.id, d.event_id, ev.type, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status,
        d.last_response, d.last_error, d.delivered_at, d.created_at
      from webhook_deliveries d join webhook_events ev on ev.id = d.event_id
      where d.endpoint_id = ${endpointId}
        and (${page.before}::bigint is null or d.id < ${page.before}::bigint)
        and (${page.status}::text is null or d.status = ${page.status}::text)
      order by d.id desc limit ${page.limit}`,
    toDelivery,
  );
}
