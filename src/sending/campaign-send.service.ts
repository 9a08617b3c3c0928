import type { AppContext } from '../context.js';
import { CAMPAIGN_NOT_FOUND, getCampaign, requireCampaign, type Campaign } from '../messaging/index.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { toPage, type PageResult } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import { currentCampaignSegment } from '../segments/index.js';
import { audienceCount, campaignListIds, markLists } from './audience.repository.js';
import { lockCampaign, moveCampaign, reopenSentCampaign } from './lifecycle/campaign-lifecycle.js';
import * as repo from './campaign-send.repository.js';
import type { AudienceCount, Delivery, DeliveryListQuery, DeliveryStatus } from './campaign-send.schemas.js';
import { requeueFailed } from './delivery.repository.js';

const LIST_NOT_FOUND = 'Subscriber list does not exists.';
const NOT_SENT_YET = 'The campaign has not been sent: send it first; resend adds lists to a campaign that is sent or being sent.';
/** Statuses in which the campaign has been handed to the sender at least once. */
const HANDED_OVER = new Set(['submitted', 'prepared', 'inprocess', 'requeued', 'suspended', 'sent']);

/**
 * Reference §5.13 send, without waiting: a draft or suspended campaign is submitted (422 saying why when it cannot
 * be), which marks its lists to be frozen; the workers freeze the audience and send. A campaign already on its way
 * or sent is answered as it is (phpList's send is a no-op then, too).
 */
export async function sendCampaign(ctx: AppContext, id: number): Promise<Campaign> {
  await ctx.db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, id);
    if (campaign === null) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
    if (campaign.status === 'draft' || campaign.status === 'suspended') await moveCampaign(tx, campaign, 'submitted');
  });
  return getCampaign(ctx, id);
}

/**
 * Reference §5.13 resend, without waiting: the lists are marked to be frozen into the campaign's audience, and the
 * workers give their confirmed, not blacklisted, not disabled members a record unless they have one (sent or not).
 * Whether anyone new is among them is not known until then, so a sent campaign always goes back to `submitted`
 * (the workers end it `sent` again); a campaign being sent freezes them as it goes, a suspended one once resumed.
 */
export async function resendCampaign(ctx: AppContext, id: number, listIds: readonly number[]): Promise<Campaign> {
  const wanted = [...new Set(listIds)];
  const found = await repo.existingListIds(ctx.db, wanted);
  if (wanted.some((listId) => !found.has(listId))) throw new NotFoundError(LIST_NOT_FOUND);
  await ctx.db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, id);
    if (campaign === null) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
    if (!HANDED_OVER.has(campaign.status)) throw new ConflictError(NOT_SENT_YET);
    await markLists(tx, id, wanted);
    await reopenSentCampaign(tx, id);
  });
  return getCampaign(ctx, id);
}

/** Failed records queued again with their attempts reset; a sent campaign goes back to `submitted` for them. */
export async function retryFailed(ctx: AppContext, id: number): Promise<{ requeued: number }> {
  const requeued = await ctx.db.transaction(async (tx) => {
    if ((await lockCampaign(tx, id)) === null) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
    const n = await requeueFailed(tx, id);
    if (n > 0) await reopenSentCampaign(tx, id);
    return n;
  });
  return { requeued };
}

export async function listDeliveries(ctx: AppContext, id: number, query: DeliveryListQuery): Promise<PageResult<Delivery>> {
  await requireCampaign(ctx, id);
  const limit = query.limit ?? 25;
  const { rows, total } = await repo.listDeliveries(ctx.db, id, query.status, query.after_id ?? 0, limit);
  const items = rows.map((r): Delivery => ({
    id: r.id,
    subscriber_id: r.subscriberId,
    email: r.email,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    last_response: r.lastResponse,
    queued_at: toAtom(r.queuedAt),
    sent_at: toAtom(r.sentAt),
    updated_at: toAtom(r.updatedAt),
    // Only a queued record has a next attempt; for the others the column is history, not a plan.
    next_attempt_at: r.status === 'queued' ? toAtom(r.nextAttemptAt) : null,
  }));
  return toPage(items, total, limit, (d) => d.id);
}

/**
 * Who a send would go to now (404 for an unknown campaign), over how many lists, and, for a campaign with an HTML
 * part, how many of them get its text part only (their html_email is false).
 */
export async function audience(ctx: AppContext, id: number): Promise<AudienceCount> {
  const campaign = await requireCampaign(ctx, id);
  const lists = await campaignListIds(ctx.db, id);
  // A segment (user_selection `segment:<id>`) narrows the lists, or is the audience when there are none.
  const segment = await currentCampaignSegment(ctx.db, id);
  const hasHtml = campaign.sendFormat !== 'text';
  const figures = await audienceCount(ctx.db, lists, segment, { textOnly: hasHtml });
  return { count: figures.count, lists: lists.length, text_only: hasHtml ? figures.textOnly : null };
}
