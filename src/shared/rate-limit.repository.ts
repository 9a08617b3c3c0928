import { and, eq, like, lt, or, sql } from 'drizzle-orm';
import { queryRows, sqlColumn, type Executor } from '../db/client.js';
import { bool, int, num, text, timestamp, type Row } from '../db/row.js';
import { sendRateWindows } from '../db/schema/index.js';

/** What a worker asks of one rate window: `want` sends of at most `limit` per `windowSeconds` under `key`. */
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

const toGrant = (row: Row): Grant => ({
  key: text(row, 'r_key'),
  granted: int(row, 'r_granted'),
  windowStart: timestamp(row, 'r_window_start'),
  windowEnd: timestamp(row, 'r_window_end'),
});

/** Reserves up to `want` sends per key from its current window (routine 020_send_rate.sql). */
export async function takeTokens(db: Executor, wants: readonly Want[]): Promise<Map<string, Grant>> {
  if (wants.length === 0) return new Map();
  const grants = await queryRows(
    db,
    sql`select * from send_rate_take(${sqlColumn(wants, 'text', (w) => w.key)}, ${sqlColumn(wants, 'int', (w) => w.windowSeconds)},
          ${sqlColumn(wants, 'int', (w) => w.want)}, ${sqlColumn(wants, 'int', (w) => w.limit)})`,
    toGrant,
  );
  return new Map(grants.map((g) => [g.key, g]));
}

/** Returns sends reserved but not used (fewer rows claimed than reserved), so other workers may have them. */
export async function giveBack(db: Executor, grant: Grant, unused: number): Promise<void> {
  if (unused <= 0) return;
  await db
    .update(sendRateWindows)
    .set({ count: sql`greatest(0, ${sendRateWindows.count} - ${unused})` })
    .where(and(eq(sendRateWindows.key, grant.key), eq(sendRateWindows.windowStart, grant.windowStart)));
}

/**
 * Takes one unit from a strict limit (`limit` per `windowSeconds`, over any such span: routine
 * 046_rate_take_strict.sql), for limits outside the sender, e.g. the mails of public forms. Windows up to a day.
 */
export async function takeStrict(db: Executor, key: string, windowSeconds: number, limit: number) {
  const [taken] = await queryRows(db, sql`select * from rate_take_strict(${key}, ${windowSeconds}::int, ${limit}::int)`, (row) => ({
    granted: bool(row, 'r_granted'),
    retryAfter: num(row, 'r_retry_after'),
  }));
  return taken!;
}

/**
 * Windows that ended more than a minute ago are of no use to anyone: the sender's own right away, others (takeStrict,
 * which also reads the previous window) once a day has passed.
 */
export async function deleteOldWindows(db: Executor, globalKey: string, domainWindowSeconds: number): Promise<void> {
  const { key, windowStart } = sendRateWindows;
  await db
    .delete(sendRateWindows)
    .where(
      or(
        and(like(key, 'domain:%'), lt(windowStart, sql`now() - make_interval(secs => ${Math.max(1, domainWindowSeconds) + 60})`)),
        and(eq(key, globalKey), lt(windowStart, sql`now() - interval '1 minute'`)),
        lt(windowStart, sql`now() - interval '2 days'`),
      ),
    );
}
