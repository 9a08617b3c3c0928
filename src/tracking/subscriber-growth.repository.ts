import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, text, textOrNull } from '../db/row.js';
import type { SubscriberGrowth } from './subscriber-growth.schemas.js';

/**
 * Subscribers per UTC day over the last `days` days and the totals (all, confirmed, blacklisted), from the per-day
 * rollup routine 013 keeps (subscriber_daily_counts): days older than the window fall into one group. Running totals
 * are worked forward from the subscribers older than the window; deleted subscribers are not counted on any day, so
 * earlier totals are today's survivors, as the dashboard's own change is.
 */
export async function subscriberGrowth(db: Executor, days: number): Promise<SubscriberGrowth> {
  const groups = await queryRows(
    db,
    sql`select to_char(g.day, 'YYYY-MM-DD') as day, g.n, g.confirmed, g.blacklisted
        from (
          select case when d.day > (now() at time zone 'utc')::date - ${days}::int then d.day end as day,
                 sum(d.subscribers)::int as n, sum(d.confirmed)::int as confirmed, sum(d.blacklisted)::int as blacklisted
          from subscriber_daily_counts d
          group by 1) g`,
    (row) => ({ day: textOrNull(row, 'day'), n: int(row, 'n'), confirmed: int(row, 'confirmed'), blacklisted: int(row, 'blacklisted') }),
  );
  const [today] = await queryRows(db, sql`select to_char(now() at time zone 'utc', 'YYYY-MM-DD') as today`, (row) => text(row, 'today'));
  const perDay = new Map(groups.filter((g) => g.day !== null).map((g) => [g.day!, g.n]));
  const totals = { subscribers: 0, confirmed: 0, blacklisted: 0 };
  for (const g of groups) {
    totals.subscribers += g.n;
    totals.confirmed += g.confirmed;
    totals.blacklisted += g.blacklisted;
  }
  let running = groups.find((g) => g.day === null)?.n ?? 0;
  const last = Date.parse(`${today!}T00:00:00Z`);
  const out: SubscriberGrowth['days'] = [];
  for (let i = days - 1; i >= 0; i--) {
    const date = new Date(last - i * 86_400_000).toISOString().slice(0, 10);
    const added = perDay.get(date) ?? 0;
    running += added;
    out.push({ date, new: added, total: running });
  }
  return { totals, days: out };
}
