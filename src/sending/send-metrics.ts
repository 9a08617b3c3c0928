import type { AppContext } from '../context.js';
import { deliveriesWaiting } from '../shared/metrics.js';
import { queuedByCampaignStatus } from './send-metrics.repository.js';

const STATUSES = ['submitted', 'prepared', 'inprocess', 'suspended', 'requeued', 'sent', 'draft'] as const;

/** Sets mailroom_deliveries_waiting from the database; called at each scrape of GET /metrics. */
export async function collectSendMetrics(ctx: AppContext): Promise<void> {
  const rows = await queuedByCampaignStatus(ctx.db);
  // Every status is reported, 0 when nothing waits under it, so a series does not vanish when its queue empties.
  for (const status of STATUSES) deliveriesWaiting.set({ campaign_status: status }, 0);
  for (const row of rows) deliveriesWaiting.set({ campaign_status: row.status }, row.queued);
}
