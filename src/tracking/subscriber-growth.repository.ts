import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import type { SubscriberGrowth } from './subscriber-growth.schemas.js';

/**
 * New subscribers per UTC day over the last `days` days (one aggregate over the window's subscribers), and the
 * running total worked back from today's count (the subscriber_counts counter), so nothing older than the window is
 * read. Deleted subscribers have no date, so earlier totals are today's survivors, as the dashboard's own change is.
 */
export async function subscriberGrowth(db: Executor, days: number): Promise<SubscriberGrowth> {
  const rows = await queryRows<{ date: string; new: number; total: number }>(
    db,
    sql`with bounds as (
          select (now() at time zone 'utc')::date - (${days}::int - 1) as first_day
        ),
        per_day as (
          select (s.created_at at time zone 'utc')::date as day, count(*)::int as n
          from subscribers s, bounds b
          where s.created_at >= (b.first_day::timestamp at time zone 'utc')
          group by 1
        ),
        series as (
          select g::date as day from bounds b,
            generate_series(b.first_day, (now() at time zone 'utc')::date, interval '1 day') g
        )
        select to_char(series.day, 'YYYY-MM-DD') as date,
               coalesce(per_day.n, 0) as new,
               ((select coalesce(sum(subscribers), 0) from subscriber_counts)
                 - coalesce(sum(per_day.n) over (order by series.day rows between 1 following and unbounded following), 0))::int as total
        from series left join per_day on per_day.day = series.day
        order by series.day`,
  );
  return { days: rows.map((r) => ({ date: r.date, new: Number(r.new), total: Math.max(0, Number(r.total)) })) };
}
