import type { Executor } from '../db/client.js';

/**
 * Called in the transaction that makes a campaign `submitted` (PATCH …/status, send). The sender fills it: this is
 * where the audience is frozen into delivery records.
 */
export async function onCampaignSubmitted(_tx: Executor, _campaignId: number): Promise<void> {}
