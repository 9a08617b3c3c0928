import { asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { campaignCounters, campaignHourlyEvents, links } from '../db/schema/index.js';

export type CounterRow = typeof campaignCounters.$inferSelect;

/** The campaign's counters row, or undefined before anything was counted. */
export async function findCounters(db: Executor, campaignId: number): Promise<CounterRow | undefined> {
  const [row] = await db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaignId));
  return row;
}

/**
 * Records being sent right now. The sender counts them under `queued` until their outcome is known; there are
 * never more than its batches in flight, so this index range is short.
 */
export async function countSending(db: Executor, campaignId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from deliveries where campaign_id = ${campaignId} and status = 'sending'`,
  );
  return row?.n ?? 0;
}

export async function hourlyEvents(db: Executor, campaignId: number) {
  return db
    .select()
    .from(campaignHourlyEvents)
    .where(eq(campaignHourlyEvents.campaignId, campaignId))
    .orderBy(asc(campaignHourlyEvents.hour));
}

export async function campaignLinks(db: Executor, campaignId: number) {
  return db
    .select({ id: links.id, url: links.url, clicks: links.clicks, uniqueClicks: links.uniqueClicks })
    .from(links)
    .where(eq(links.campaignId, campaignId))
    .orderBy(asc(links.id));
}
