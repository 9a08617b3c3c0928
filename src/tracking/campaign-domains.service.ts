import type { AppContext } from '../context.js';
import { CAMPAIGN_NOT_FOUND } from '../messaging/index.js';
import { NotFoundError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { claimDomainRefresh, domainFigures, domainSnapshotState, refreshDomainFigures, releaseDomainRefresh } from './campaign-domains.repository.js';
import type { CampaignDomains } from './campaign-domains.schemas.js';

/** A snapshot older than this is refreshed on request… */
const MAX_AGE_MINUTES = 10;
/** …unless the campaign was sent this many days before it was taken: its figures have settled. */
const SETTLED_DAYS = 7;

/**
 * The campaign's domains as of its snapshot (campaign-domains.schemas.ts); 404 for an unknown campaign. A missing or
 * stale snapshot starts one refresh in the background (claimed in the database, so concurrent requests and other
 * processes start none) and the answer is what there is now: grouping a million deliveries takes seconds.
 */
export async function campaignDomains(ctx: AppContext, campaignId: number, limit: number): Promise<CampaignDomains> {
  const state = await domainSnapshotState(ctx.db, campaignId, MAX_AGE_MINUTES, SETTLED_DAYS);
  if (!state) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  // Read before the refresh starts, so the figures are the ones computed at `computed_at`.
  const items = state.computedAt ? await domainFigures(ctx.db, campaignId, limit) : [];
  if (!state.fresh && (await claimDomainRefresh(ctx.db, campaignId))) void refreshInBackground(ctx, campaignId);
  return { computed_at: state.computedAt ? toAtom(state.computedAt) : null, stale: !state.fresh, items };
}

async function refreshInBackground(ctx: AppContext, campaignId: number): Promise<void> {
  const started = Date.now();
  try {
    await refreshDomainFigures(ctx.db, campaignId);
    ctx.log.info({ campaignId, ms: Date.now() - started }, 'campaign domain figures refreshed');
  } catch (err) {
    ctx.log.error({ err, campaignId }, 'campaign domain figures: refresh failed');
    await releaseDomainRefresh(ctx.db, campaignId).catch(() => undefined);
  }
}
