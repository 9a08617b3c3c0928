import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { ConflictError } from '../shared/errors.js';
import * as runs from './campaign-run.repository.js';
import { hasPendingSources } from './audience.repository.js';
import { hasPendingDeliveries } from './delivery.repository.js';
import { lockCampaign, moveCampaign, submitProblem, type LockedCampaign } from './lifecycle/campaign-lifecycle.js';

/*
 * A campaign's way through the sender (reference §7.1): submitted → prepared when its embargo has come (its audience
 * is frozen then, audience-freeze.ts) → inprocess, then sent when no record is left to send and no list to freeze —
 * or back to submitted for a requeue, or suspended by a run of failures. Every move is lockCampaign then moveCampaign
 * (lifecycle/) in one transaction, so several workers agree on it.
 */

const MINUTE = 60_000;

/**
 * Moves due `submitted` campaigns to `prepared`, where a worker freezes their audience before they go on to
 * `inprocess`. Answers the ids moved.
 */
export async function promoteDueCampaigns(ctx: AppContext): Promise<number[]> {
  const moved: number[] = [];
  for (const id of await runs.dueCampaignIds(ctx.db)) {
    const started = await ctx.db.transaction(async (tx) => {
      const campaign = await lockCampaign(tx, id);
      if (campaign?.status !== 'submitted') return false; // another worker was first
      if (campaign.embargo.getTime() > Date.now()) return false;
      // The lists to freeze were marked when it was submitted (a requeue included: the new pass reaches whoever
      // joined its lists while it waited, see docs/api.md).
      await moveCampaign(tx, campaign, 'prepared');
      await runs.resetSendState(tx, id);
      return true;
    });
    if (started) {
      moved.push(id);
      ctx.log.info({ campaignId: id }, 'campaign due: freezing its audience');
    }
  }
  return moved;
}

function inRequeueWindow(campaign: LockedCampaign, now: Date): boolean {
  return campaign.requeueInterval > 0 && campaign.requeueUntil !== null && campaign.requeueUntil.getTime() > now.getTime();
}

export type Finish = 'sent' | 'requeued' | null;

/**
 * When an `inprocess` campaign has no record left to send and no list left to freeze (a resend while it was
 * sending): back to `submitted` with a later embargo while its requeue window lasts, otherwise `sent` — and then,
 * for a repeating campaign, its next occurrence is scheduled.
 */
export async function finishIfDone(ctx: AppContext, campaignId: number): Promise<Finish> {
  // Lists before records: a chunk that commits between the two reads has added records the second read sees.
  if ((await hasPendingSources(ctx.db, campaignId)) || (await hasPendingDeliveries(ctx.db, campaignId))) return null;
  const finish = await ctx.db.transaction(async (tx): Promise<Finish> => {
    const campaign = await lockCampaign(tx, campaignId);
    if (campaign?.status !== 'inprocess') return null;
    // Checked again under the lock: a resend may have marked lists meanwhile (it takes the same lock).
    if ((await hasPendingSources(tx, campaignId)) || (await hasPendingDeliveries(tx, campaignId))) return null;
    const now = new Date();
    if (inRequeueWindow(campaign, now)) {
      const next = new Date(Math.max(now.getTime(), campaign.embargo.getTime()) + campaign.requeueInterval * MINUTE);
      if (next.getTime() <= campaign.requeueUntil!.getTime() && !(await submitProblem(tx, campaign))) {
        await runs.setEmbargo(tx, campaignId, next);
        await moveCampaign(tx, campaign, 'submitted');
        return 'requeued';
      }
    }
    await moveCampaign(tx, campaign, 'sent');
    const copyId = await scheduleRepeat(tx, campaign, now);
    if (copyId !== null) ctx.log.info({ campaignId, nextCampaignId: copyId }, 'repeating campaign: next occurrence scheduled');
    return 'sent';
  });
  if (finish) ctx.log.info({ campaignId, status: finish === 'sent' ? 'sent' : 'submitted' }, `campaign ${finish}`);
  return finish;
}

/**
 * A repeating campaign (repeat_interval > 0, repeat_until in the future) that has been sent gets a copy scheduled at
 * its embargo + repeat_interval — occurrences already in the past are skipped, not sent late in a burst — as long as
 * that time is not after repeat_until. The copy is submitted at once, so it waits for its embargo.
 */
async function scheduleRepeat(tx: Executor, campaign: LockedCampaign, now: Date): Promise<number | null> {
  if (campaign.repeatInterval <= 0 || !campaign.repeatUntil) return null;
  const step = campaign.repeatInterval * MINUTE;
  let next = campaign.embargo.getTime() + step;
  if (next <= now.getTime()) next += Math.ceil((now.getTime() - next) / step) * step;
  if (next <= now.getTime()) next += step;
  if (next > campaign.repeatUntil.getTime()) return null;
  const id = await runs.insertRepeatCopy(tx, campaign.id, randomBytes(18).toString('hex'), new Date(next));
  const copy = (await lockCampaign(tx, id))!;
  if (await submitProblem(tx, copy)) return id; // left as a draft; someone can fix and submit it
  await moveCampaign(tx, copy, 'submitted');
  return id;
}

/**
 * Suspends a campaign the sender cannot go on with (a run of failures, content that cannot be prepared), recording
 * why. Resuming is `PATCH …/status` to `submitted`. Answers false when the campaign had already left the sender.
 */
export async function pauseCampaign(ctx: AppContext, campaignId: number, reason: string, logReason: string): Promise<boolean> {
  const paused = await ctx.db
    .transaction(async (tx) => {
      const campaign = await lockCampaign(tx, campaignId);
      if (campaign?.status !== 'inprocess' && campaign?.status !== 'submitted') return false;
      await moveCampaign(tx, campaign, 'suspended');
      await runs.recordPause(tx, campaignId, reason);
      return true;
    })
    .catch((err: unknown) => {
      if (err instanceof ConflictError) return false;
      throw err;
    });
  // The log carries no SMTP text (it can quote the recipient's address); the record has it.
  if (paused) ctx.log.warn({ campaignId, reason: logReason }, 'campaign suspended by the sender');
  return paused;
}
