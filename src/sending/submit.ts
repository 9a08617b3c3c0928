import type { Executor } from '../db/client.js';
import { markCampaignSegment } from '../segments/index.js';
import { markCampaignLists } from './audience.repository.js';

/**
 * Called in the transaction that makes a campaign `submitted` (PATCH …/status, send, resume, requeue, a repeat's
 * copy): marks the campaign's lists to be frozen into delivery records. That is one small statement whatever the
 * lists' size; a worker does the freezing itself in chunks once the embargo has come (audience-freeze.ts), as
 * reference §7.1's `prepared` step. Additive: subscribers who already have a record are left alone, so resubmitting
 * never duplicates, and a freeze that was interrupted continues where it stopped.
 */
export async function onCampaignSubmitted(tx: Executor, campaignId: number): Promise<void> {
  await markCampaignLists(tx, campaignId);
  // `user_selection: segment:<id>`: the segment narrows the lists, or is the audience when there are none.
  await markCampaignSegment(tx, campaignId);
}
