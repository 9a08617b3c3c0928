import { sql } from 'drizzle-orm';
import { queryRows, type Executor, sqlArray, sqlColumn } from '../db/client.js';
import { int, intOrNull, type Row } from '../db/row.js';
import { STILL_IN_AUDIENCE } from '../subscription/index.js';

/*
 * The delivery ledger's hot statements: claiming batches under a lease, recording outcomes, handing rows back.
 * Every one is a single statement over a whole batch, so a worker makes a handful of round trips per 200 mails.
 */

export interface ClaimedDelivery {
  readonly id: number;
  readonly subscriberId: number;
  readonly attempts: number;
}

/*
 * Claimed rows are the sender's hot path: read by literal column name (a named load V8 specialises) rather than
 * through db/row.ts's readers, whose variable column name costs about 3 times as much per row (see
 * tracking/event-flush.repository.ts). The id is a bigint: text from node-postgres, as before.
 */
const toClaimed = (row: Row): ClaimedDelivery => ({
  id: Number(row['id']),
  subscriberId: Number(row['subscriber_id']),
  attempts: Number(row['attempts']),
});

/** The id a statement's `returning id` answers, for counting what it touched. */
const toId = (row: Row): number => Number(row['id']);

/**
 * Takes up to `limit` queued, due records of an `inprocess` campaign for this worker. SKIP LOCKED lets several
 * workers claim from one campaign at once without waiting for or overlapping each other; the lease says until when
 * the rows are this worker's. The campaign's status is read in the claim itself, so a suspended campaign stops
 * being handed out at once.
 */
export async function claimBatch(
  db: Executor,
  campaignId: number,
  workerId: string,
  limit: number,
  leaseSeconds: number,
): Promise<ClaimedDelivery[]> {
  const claimed = await queryRows(
    db,
    sql`update deliveries d
        set status = 'sending', lease_until = now() + make_interval(secs => ${leaseSeconds}), worker_id = ${workerId},
            updated_at = now()
        where d.id in (
          select q.id from deliveries q
          where q.campaign_id = ${campaignId} and q.status = 'queued' and q.next_attempt_at <= now()
            and exists (select 1 from campaigns c where c.id = ${campaignId} and c.status = 'inprocess')
          order by q.id
          limit ${limit}
          for update of q skip locked
        )
        returning d.id, d.subscriber_id, d.attempts`,
    toClaimed,
  );
  return claimed.sort((a, b) => a.id - b.id);
}

/** Keeps a slow batch this worker's: pushes the lease of rows it still holds forward. */
export async function extendLease(db: Executor, ids: readonly number[], workerId: string, leaseSeconds: number): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(
    sql`update deliveries set lease_until = now() + make_interval(secs => ${leaseSeconds})
        where id = any(${sqlArray(ids, 'bigint')}) and status = 'sending' and worker_id = ${workerId}`,
  );
}

/**
 * Hands claimed rows back unsent (graceful stop, a domain over its window, a campaign that could not be
 * prepared): queued again, attempts unchanged, due at `dueAt` (now when null).
 */
export async function releaseClaimed(db: Executor, ids: readonly number[], workerId: string, dueAt: Date | null = null): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await queryRows(
    db,
    sql`update deliveries
        set status = 'queued', lease_until = null, worker_id = null, updated_at = now(),
            next_attempt_at = coalesce(${dueAt?.toISOString() ?? null}::timestamptz, now())
        where id = any(${sqlArray(ids, 'bigint')}) and status = 'sending' and worker_id = ${workerId}
        returning id`,
    toId,
  );
  return rows.length;
}

export const LEASE_EXPIRED = 'Re-queued: the worker holding it stopped before recording an outcome.';

/**
 * Rows whose worker died (or stalled past its lease) go back to the queue. Scoped to campaigns that can have
 * rows in flight, so the scan walks the (campaign_id, status) index rather than the whole ledger.
 */
export async function requeueExpiredLeases(db: Executor): Promise<number> {
  const rows = await queryRows(
    db,
    sql`update deliveries d
        set status = 'queued', lease_until = null, worker_id = null, last_response = ${LEASE_EXPIRED}, updated_at = now()
        where d.campaign_id in (select id from campaigns where status in ('submitted', 'prepared', 'inprocess', 'suspended', 'sent'))
          and d.status = 'sending' and d.lease_until < now()
        returning d.id`,
    toId,
  );
  return rows.length;
}

/**
 * Every row in flight that none of `liveWorkers` holds goes back to the queue, lease or not. Only for embedded
 * PGlite at start: one process owns that database, so a row claimed by any other worker id was left by a process
 * that is gone.
 */
export async function requeueOrphans(db: Executor, liveWorkers: readonly string[]): Promise<number> {
  const rows = await queryRows(
    db,
    sql`update deliveries d
        set status = 'queued', lease_until = null, worker_id = null, last_response = ${LEASE_EXPIRED}, updated_at = now()
        where d.campaign_id in (select id from campaigns where status in ('submitted', 'prepared', 'inprocess', 'suspended', 'sent'))
          and d.status = 'sending' and not (d.worker_id = any(${sqlArray(liveWorkers, 'text')}))
        returning d.id`,
    toId,
  );
  return rows.length;
}

export type OutcomeStatus = 'sent' | 'failed' | 'skipped' | 'queued';

export interface Outcome {
  readonly id: number;
  readonly status: OutcomeStatus;
  readonly attempts: number;
  readonly response: string | null;
  readonly format: 'html' | 'text' | null;
  readonly messageId: string | null;
  /** For `queued` (a temporary failure to retry): when. */
  readonly nextAttemptAt: Date | null;
}

export interface RecordedBatch {
  readonly sent: number;
  readonly failed: number;
  readonly skipped: number;
  readonly retried: number;
  /** The campaign's run of failures with no success in between, after this batch. */
  readonly consecutiveFailures: number;
}

/**
 * Records a batch's outcomes and moves the campaign's figures with them, in one statement: the records (only those
 * this worker still holds), `campaign_counters`, the day's `campaign_daily_sends`, the campaign's
 * `as_html`/`as_text`/`processed`, and the run of
 * consecutive failures. `failureTail` is the number of failures after the batch's last success (all of them when
 * `hadSuccess` is false, which extends the run instead of restarting it).
 */
export async function recordOutcomes(
  db: Executor,
  campaignId: number,
  workerId: string,
  outcomes: readonly Outcome[],
  failureTail: number,
  hadSuccess: boolean,
): Promise<RecordedBatch> {
  const [recorded] = await queryRows(
    db,
    sql`with v as (
          select * from unnest(${sqlColumn(outcomes, 'bigint', (o) => o.id)}, ${sqlColumn(outcomes, 'text', (o) => o.status)},
            ${sqlColumn(outcomes, 'int', (o) => o.attempts)}, ${sqlColumn(outcomes, 'text', (o) => o.response)},
            ${sqlColumn(outcomes, 'text', (o) => o.format)}, ${sqlColumn(outcomes, 'text', (o) => o.messageId)},
            ${sqlColumn(outcomes, 'timestamptz', (o) => o.nextAttemptAt?.toISOString() ?? null)})
            as v(id, status, attempts, response, format, message_id, next_attempt_at)
        ),
        done as (
          update deliveries d
          set status = v.status, attempts = v.attempts, last_response = v.response,
              format = coalesce(v.format, d.format), message_id = coalesce(v.message_id, d.message_id),
              sent_at = case when v.status = 'sent' then now() else d.sent_at end,
              next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at),
              lease_until = null, worker_id = null, updated_at = now()
          from v
          where d.id = v.id and d.status = 'sending' and d.worker_id = ${workerId}
          returning d.status, d.format
        ),
        agg as (
          select count(*) filter (where status = 'sent')::int as sent,
                 count(*) filter (where status = 'failed')::int as failed,
                 count(*) filter (where status = 'skipped')::int as skipped,
                 count(*) filter (where status = 'queued')::int as retried,
                 count(*) filter (where status = 'sent' and format = 'html')::int as html,
                 count(*) filter (where status = 'sent' and format = 'text')::int as text
          from done
        ),
        counters as (
          update campaign_counters k
          set queued = k.queued - (agg.sent + agg.failed + agg.skipped), sent = k.sent + agg.sent,
              failed = k.failed + agg.failed, skipped = k.skipped + agg.skipped, updated_at = now()
          from agg where k.campaign_id = ${campaignId}
        ),
        -- updated_at is left alone on purpose: it marks content changes (workers recompile when it moves).
        formats as (
          update campaigns c
          set as_html = c.as_html + agg.html, as_text = c.as_text + agg.text, processed = c.processed + agg.sent
          from agg where c.id = ${campaignId} and agg.sent > 0
        ),
        -- Sends per UTC day for the dashboard (campaign_daily_sends), moved with the counters.
        daily as (
          insert into campaign_daily_sends (campaign_id, day, sent, failed)
          select ${campaignId}, (now() at time zone 'UTC')::date, agg.sent, agg.failed from agg where agg.sent + agg.failed > 0
          on conflict (campaign_id, day) do update
            set sent = campaign_daily_sends.sent + excluded.sent, failed = campaign_daily_sends.failed + excluded.failed
        ),
        run as (
          insert into campaign_send_states (campaign_id, consecutive_failures) values (${campaignId}, ${failureTail})
          on conflict (campaign_id) do update
            set consecutive_failures = case when ${hadSuccess} then ${failureTail}
                                            else campaign_send_states.consecutive_failures + ${failureTail} end,
                updated_at = now()
          returning consecutive_failures
        )
        select agg.sent, agg.failed, agg.skipped, agg.retried, (select consecutive_failures from run) as run from agg`,
    (row): RecordedBatch => ({
      sent: int(row, 'sent'),
      failed: int(row, 'failed'),
      skipped: int(row, 'skipped'),
      retried: int(row, 'retried'),
      // A scalar subquery: null only if `run` answered no row, read as no run (as before the mapper).
      consecutiveFailures: intOrNull(row, 'run') ?? 0,
    }),
  );
  return recorded ?? { sent: 0, failed: 0, skipped: 0, retried: 0, consecutiveFailures: 0 };
}

/** Whether any record of the campaign is still to be sent (queued, even if not due yet, or in flight). */
export async function hasPendingDeliveries(db: Executor, campaignId: number): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`select 1 as one from deliveries where campaign_id = ${campaignId} and status in ('queued', 'sending') limit 1`,
    (row) => int(row, 'one'),
  );
  return rows.length > 0;
}

/**
 * failed → queued with the attempts reset; the counters follow. Returns how many records were queued again. Only
 * records whose subscriber is still in the campaign's audience by the consent rule (subscription's STILL_IN_AUDIENCE):
 * someone who left its lists since stays `failed`, not mailed.
 */
export async function requeueFailed(db: Executor, campaignId: number): Promise<number> {
  const [n] = await queryRows(
    db,
    sql`with moved as (
          update deliveries d set status = 'queued', attempts = 0, next_attempt_at = now(), updated_at = now()
          where d.campaign_id = ${campaignId} and d.status = 'failed' and ${STILL_IN_AUDIENCE}
          returning 1
        ),
        counted as (
          update campaign_counters k
          set failed = k.failed - (select count(*) from moved), queued = k.queued + (select count(*) from moved),
              updated_at = now()
          where k.campaign_id = ${campaignId}
        )
        select count(*)::int as n from moved`,
    (row) => int(row, 'n'),
  );
  return n ?? 0;
}
