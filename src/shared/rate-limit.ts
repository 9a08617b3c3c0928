import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { sqlArray } from '../db/client.js';

/*
 * Rate limits shared by every worker through the database (`send_rate_windows`): a global messages-per-second
 * window and one window per recipient domain. Workers reserve a whole batch's worth at once, so the cost is one
 * statement per batch, not per message.
 */

export const GLOBAL_KEY = 'global';
export const domainKey = (domain: string) => `domain:${domain}`;

export interface Want {
  readonly key: string;
  readonly windowSeconds: number;
  readonly want: number;
  readonly limit: number;
}

export interface Grant {
  readonly key: string;
  readonly granted: number;
  readonly windowStart: Date;
  readonly windowEnd: Date;
}

/** Reserves up to `want` sends per key from its current window (routine 020_send_rate.sql). */
export async function takeTokens(db: Executor, wants: readonly Want[]): Promise<Map<string, Grant>> {
  if (wants.length === 0) return new Map();
  const rows = await queryRows<{ r_key: string; r_granted: number; r_window_start: Date | string; r_window_end: Date | string }>(
    db,
    sql`select * from send_rate_take(${sqlArray(wants.map((w) => w.key), 'text')}, ${sqlArray(wants.map((w) => w.windowSeconds), 'int')},
          ${sqlArray(wants.map((w) => w.want), 'int')}, ${sqlArray(wants.map((w) => w.limit), 'int')})`,
  );
  return new Map(
    rows.map((r) => [
      r.r_key,
      { key: r.r_key, granted: r.r_granted, windowStart: new Date(r.r_window_start), windowEnd: new Date(r.r_window_end) },
    ]),
  );
}

/** Returns sends reserved but not used (fewer rows claimed than reserved), so other workers may have them. */
export async function giveBack(db: Executor, grant: Grant, unused: number): Promise<void> {
  if (unused <= 0) return;
  await db.execute(
    sql`update send_rate_windows set count = greatest(0, count - ${unused})
        where key = ${grant.key} and window_start = ${grant.windowStart.toISOString()}::timestamptz`,
  );
}

/**
 * Takes one unit from a strict limit (`limit` per `windowSeconds`, over any such span: routine
 * 046_rate_take_strict.sql), for limits outside the sender, e.g. the mails of public forms. Windows up to a day.
 */
export async function takeStrict(db: Executor, key: string, windowSeconds: number, limit: number) {
  const [row] = await queryRows<{ r_granted: boolean; r_retry_after: number }>(
    db,
    sql`select * from rate_take_strict(${key}, ${windowSeconds}::int, ${limit}::int)`,
  );
  return { granted: row!.r_granted, retryAfter: Number(row!.r_retry_after) };
}

/**
 * Windows that ended more than a minute ago are of no use to anyone: the sender's own right away, others (takeStrict,
 * which also reads the previous window) once a day has passed.
 */
export async function deleteOldWindows(db: Executor, domainWindowSeconds: number): Promise<void> {
  await db.execute(
    sql`delete from send_rate_windows
        where (key like 'domain:%' and window_start < now() - make_interval(secs => ${Math.max(1, domainWindowSeconds) + 60}))
           or (key = ${GLOBAL_KEY} and window_start < now() - interval '1 minute')
           or window_start < now() - interval '2 days'`,
  );
}

/** The recipient's domain, lower-cased (the part after the last `@`). */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}
