import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { int, num, text } from '../db/row.js';

/*
 * What the console's campaigns table shows beside each campaign: its lists and its sending and tracking figures,
 * read from campaign_counters (kept by the sender and the tracking flush), never recounted from deliveries or events.
 * Two queries per page, whatever the number of deliveries.
 */

export interface CampaignFiguresRow {
  lists: { id: number; name: string }[];
  total: number;
  sent: number;
  failed: number;
  unique_opens: number;
  unique_clicks: number;
}

const EMPTY: CampaignFiguresRow = { lists: [], total: 0, sent: 0, failed: 0, unique_opens: 0, unique_clicks: 0 };

export async function figuresOf(db: Executor, ids: readonly number[]): Promise<Map<number, CampaignFiguresRow>> {
  const result = new Map<number, CampaignFiguresRow>(ids.map((id) => [id, { ...EMPTY, lists: [] }]));
  if (ids.length === 0) return result;
  const idArray = sql`array[${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )}]::int[]`;
  const [counters, links] = await Promise.all([
    queryRows(
      db,
      sql`select campaign_id as id, (queued + sent + failed + skipped)::float8 as total, sent::float8 as sent,
            failed::float8 as failed, unique_opens::float8 as unique_opens, unique_clicks::float8 as unique_clicks
          from campaign_counters where campaign_id = any(${idArray})`,
      (row) => ({
        id: int(row, 'id'),
        total: num(row, 'total'),
        sent: num(row, 'sent'),
        failed: num(row, 'failed'),
        uniqueOpens: num(row, 'unique_opens'),
        uniqueClicks: num(row, 'unique_clicks'),
      }),
    ),
    queryRows(
      db,
      sql`select lc.campaign_id, l.id, l.name from list_campaigns lc join lists l on l.id = lc.list_id
          where lc.campaign_id = any(${idArray}) order by lc.campaign_id, l.name, l.id`,
      (row) => ({ campaignId: int(row, 'campaign_id'), id: int(row, 'id'), name: text(row, 'name') }),
    ),
  ]);
  for (const c of counters) {
    const row = result.get(c.id);
    if (row) Object.assign(row, { total: c.total, sent: c.sent, failed: c.failed, unique_opens: c.uniqueOpens, unique_clicks: c.uniqueClicks });
  }
  for (const link of links) result.get(link.campaignId)?.lists.push({ id: link.id, name: link.name });
  return result;
}
