import type { AppContext } from '../context.js';
import { webhooksPending } from '../shared/metrics.js';
import { countPending } from './webhook.repository.js';

/** At each scrape: deliveries waiting to be (re)tried. */
export async function collectWebhookMetrics(ctx: AppContext): Promise<void> {
  webhooksPending.set(await countPending(ctx.db));
}
