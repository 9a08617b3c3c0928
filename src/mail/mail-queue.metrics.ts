import type { AppContext } from '../context.js';
import { mailQueueWaiting } from '../shared/metrics.js';
import { countQueuedByState } from './mail-queue.repository.js';

/** Sets mailroom_mail_queue_waiting from the queue; called at each scrape of GET /metrics. */
export async function collectMailQueueMetrics(ctx: AppContext): Promise<void> {
  const { fresh, retrying } = await countQueuedByState(ctx.db);
  mailQueueWaiting.set({ state: 'new' }, fresh);
  mailQueueWaiting.set({ state: 'retrying' }, retrying);
}
