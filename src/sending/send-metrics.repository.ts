import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, text } from '../db/row.js';

/**
 * Deliveries still queued, summed by their campaign's status, from the per-campaign counters (one row per campaign,
 * never a scan of the ledger): what GET /metrics reports as mailroom_deliveries_waiting.
 */
export async function queuedByCampaignStatus(db: Executor): Promise<{ status: string; queued: number }[]> {
  return queryRows(
    db,
    sql`select c.status, coalesce(sum(k.queued), 0)::int as queued
        from campaign_counters k join campaigns c on c.id = k.campaign_id
        where k.queued > 0 group by c.status order by c.status`,
    (row) => ({ status: text(row, 'status'), queued: int(row, 'queued') }),
  );
}
