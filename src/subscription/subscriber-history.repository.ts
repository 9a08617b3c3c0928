import { and, asc, count, eq, gt, gte, sql, type SQL } from 'drizzle-orm';
import { sqlArray, type Executor } from '../db/client.js';
import { subscriberHistory } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import type { HistoryOrigin, SubscriberHistory } from './subscriber-history.schemas.js';

export type HistoryRow = typeof subscriberHistory.$inferSelect;

/** Row → API shape (reference §6.9). */
export function toHistory(row: HistoryRow): SubscriberHistory {
  return {
    id: row.id,
    ip: row.ip,
    created_at: toAtom(row.createdAt),
    summary: row.summary,
    detail: row.detail,
    system_info: row.systemInfo,
  };
}

/** What an entry keeps of the client: its User-Agent, cut to fit. */
function systemInfo(origin: HistoryOrigin): string | null {
  return origin.userAgent ? `User-Agent: ${origin.userAgent.slice(0, 255)}` : null;
}

export async function insertHistory(
  db: Executor,
  subscriberId: number,
  origin: HistoryOrigin,
  summary: string,
  detail: string | null,
): Promise<void> {
  await db.insert(subscriberHistory).values({
    subscriberId,
    ip: origin.ip,
    summary,
    detail,
    systemInfo: systemInfo(origin),
  });
}

/** The same entry for several subscribers: one statement over an array of ids, however many (imports, bulk actions). */
export async function insertHistoryForMany(
  db: Executor,
  subscriberIds: number[],
  origin: HistoryOrigin,
  summary: string,
  detail: string | null,
): Promise<void> {
  if (subscriberIds.length === 0) return;
  await db.execute(
    sql`insert into subscriber_history (subscriber_id, ip, summary, detail, system_info)
        select unnest(${sqlArray(subscriberIds, 'integer')}), ${origin.ip}, ${summary}, ${detail}, ${systemInfo(origin)}`,
  );
}

export interface HistoryFilter {
  ip?: string;
  dateFrom?: Date;
  summary?: string;
}

function historyWhere(subscriberId: number, filter: HistoryFilter): SQL | undefined {
  return and(
    eq(subscriberHistory.subscriberId, subscriberId),
    filter.ip !== undefined ? eq(subscriberHistory.ip, filter.ip) : undefined,
    filter.dateFrom !== undefined ? gte(subscriberHistory.createdAt, filter.dateFrom) : undefined,
    filter.summary !== undefined ? eq(subscriberHistory.summary, filter.summary) : undefined,
  );
}

/** One keyset page of a subscriber's history (id order) and the number of entries matching the filter. */
export async function listHistory(db: Executor, subscriberId: number, filter: HistoryFilter, afterId: number, limit: number) {
  const rows = await db
    .select()
    .from(subscriberHistory)
    .where(and(historyWhere(subscriberId, filter), gt(subscriberHistory.id, afterId)))
    .orderBy(asc(subscriberHistory.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(subscriberHistory).where(historyWhere(subscriberId, filter));
  return { rows, total: total?.n ?? 0 };
}

/** A subscriber's whole history, oldest first, for the single-subscriber view. */
export async function historyOf(db: Executor, subscriberId: number): Promise<HistoryRow[]> {
  return db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, subscriberId)).orderBy(asc(subscriberHistory.id));
}
