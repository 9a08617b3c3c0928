import { sql } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { int, text, timestamp, type Row } from '../db/row.js';
import { mailQueue } from '../db/schema/index.js';

/*
 * The SQL of the system-mail queue (schema/mail.ts): one insert for any number of mails (finished, or by reference),
 * a claim under a lease, and one statement per outcome.
 */

/** What a queued mail holds: nodemailer's fields, From left to the mailer (MAIL_FROM). */
export interface QueuedMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
  /** Kept across attempts, so that a receiver can merge the copies a lost reply makes us send twice. */
  readonly messageId: string;
}

/** A finished message: its bytes (base64, as JSON holds no bytes) and envelope; its From and Message-ID are inside. */
export interface QueuedRawMessage {
  readonly envelope: { readonly from: string; readonly to: string };
  readonly raw: string;
}

/**
 * A mail queued by reference: the renderer its kind registered (mail-renderers.ts) makes it from `ref` when the
 * drainer sends it. The Message-ID is chosen at queueing, so that every attempt sends the same one.
 */
export interface QueuedReference {
  readonly ref: number;
  readonly messageId: string;
}

export interface ClaimedMail {
  readonly id: number;
  readonly kind: string;
  readonly message: QueuedMessage | QueuedRawMessage | QueuedReference;
  /** This attempt's number (1 for the first). */
  readonly attempts: number;
  readonly giveUpAt: Date;
}

/** One insert statement for all of them, whatever their number (none too): the messages go as one array parameter. */
export async function insertMails(
  db: Executor,
  kind: string,
  messages: readonly (QueuedMessage | QueuedRawMessage)[],
  giveUpSeconds: number,
): Promise<void> {
  const json = messages.map((message) => JSON.stringify(message));
  await db.execute(
    sql`insert into ${mailQueue} (kind, message, give_up_at)
        select ${kind}, m.json::jsonb, now() + make_interval(secs => ${giveUpSeconds})
        from unnest(${sqlArray(json, 'text')}) as m(json)`,
  );
}

/**
 * Mails by reference, one row each, in one statement whatever their number: the ids go as one array parameter and
 * the database writes `{ref, messageId}` (a fresh UUID under `messageIdDomain`, the form `queueMail` gives), so
 * nothing is rendered or sent per mail. A few dozen bytes a row: what keeps an import's batch small.
 */
export async function insertReferences(
  db: Executor,
  kind: string,
  ids: readonly number[],
  messageIdDomain: string,
  giveUpSeconds: number,
): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(
    sql`insert into ${mailQueue} (kind, message, give_up_at)
        select ${kind}, jsonb_build_object('ref', r.id, 'messageId', '<' || gen_random_uuid() || '@' || ${messageIdDomain}::text || '>'),
               now() + make_interval(secs => ${giveUpSeconds})
        from unnest(${sqlArray(ids, 'bigint')}) as r(id)`,
  );
}

function messageOf(row: Row): QueuedMessage | QueuedRawMessage | QueuedReference {
  const raw: unknown = typeof row['message'] === 'string' ? JSON.parse(row['message']) : row['message'];
  const m = (raw ?? {}) as Record<string, unknown>;
  const field = (name: string) => (typeof m[name] === 'string' ? m[name] : '');
  if (typeof m.ref === 'number') return { ref: m.ref, messageId: field('messageId') };
  if (typeof m.raw === 'string') {
    const envelope = (m.envelope ?? {}) as Record<string, unknown>;
    const address = (name: string) => (typeof envelope[name] === 'string' ? envelope[name] : '');
    return { envelope: { from: address('from'), to: address('to') }, raw: m.raw };
  }
  return {
    to: field('to'),
    subject: field('subject'),
    text: field('text'),
    ...(typeof m.html === 'string' ? { html: m.html } : {}),
    messageId: field('messageId'),
  };
}

/**
 * Takes up to `limit` due mails for this drainer, oldest first. SKIP LOCKED lets drainers of several processes claim
 * at once without waiting for each other; the lease is `next_attempt_at` moved to its end, so a row whose drainer
 * died is due again then, with no sweeper.
 */
export async function claimMail(db: Executor, workerId: string, limit: number, leaseSeconds: number): Promise<ClaimedMail[]> {
  return queryRows(
    db,
    sql`update ${mailQueue} q
        set worker_id = ${workerId}, attempts = q.attempts + 1,
            next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
        where q.id in (
          select id from ${mailQueue} where next_attempt_at <= now() order by next_attempt_at
          limit ${limit} for update skip locked)
        returning q.id, q.kind, q.message, q.attempts, q.give_up_at`,
    (row): ClaimedMail => ({
      id: int(row, 'id'),
      kind: text(row, 'kind'),
      message: messageOf(row),
      attempts: int(row, 'attempts'),
      giveUpAt: timestamp(row, 'give_up_at'),
    }),
  );
}

/** A sent (or given-up) mail leaves the queue: only while this drainer still holds it. */
export async function deleteMail(db: Executor, id: number, workerId: string): Promise<void> {
  await db.execute(sql`delete from ${mailQueue} where id = ${id} and worker_id = ${workerId}`);
}

/** A failed attempt: the row waits `delaySeconds`, unheld, with the failure (addresses masked) kept. */
export async function retryMail(db: Executor, id: number, workerId: string, delaySeconds: number, error: string): Promise<void> {
  await db.execute(
    sql`update ${mailQueue} set worker_id = null, last_error = ${error},
          next_attempt_at = now() + make_interval(secs => ${delaySeconds})
        where id = ${id} and worker_id = ${workerId}`,
  );
}

/** Mails waiting: never tried yet, and tried and failed at least once (GET /metrics). */
export async function countQueuedByState(db: Executor): Promise<{ fresh: number; retrying: number }> {
  const [row] = await db
    .select({
      fresh: sql<number>`count(*) filter (where ${mailQueue.attempts} = 0)::int`,
      retrying: sql<number>`count(*) filter (where ${mailQueue.attempts} > 0)::int`,
    })
    .from(mailQueue);
  return { fresh: row?.fresh ?? 0, retrying: row?.retrying ?? 0 };
}

/** How many mails wait (tests and the operator's view). */
export async function countQueued(db: Executor): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(mailQueue);
  return row?.n ?? 0;
}
