import type { Executor } from '../../db/client.js';
import type { CampaignStatus } from '../../messaging/index.js';
import { markCampaignSegment, segmentIdOf } from '../../segments/index.js';
import { ConflictError, ValidationError } from '../../shared/errors.js';
import { isWebhookWanted, recordWebhookEvent } from '../../webhooks/index.js';
import { markCampaignLists } from '../audience.repository.js';
import * as repo from './lifecycle.repository.js';
import { canMove, INVALID_TRANSITION } from './transitions.js';

/*
 * The one owner of a campaign's status (reference §7.1): who may move it where, under which lock, and what a move
 * sets off. Callers lock the row with lockCampaign, decide on what it answers, and move it with moveCampaign in the
 * same transaction; an administrator's change (PATCH …/status, in messaging) is changeCampaignStatus.
 */

export { lockCampaign, type LockedCampaign } from './lifecycle.repository.js';

const CANNOT_SUBMIT = 'Cannot submit. Add at least one list and fill subject, from field, and message body';
const CANNOT_SUBMIT_INVITE = 'Cannot submit invitation. Add [CONFIRMATIONURL] placeholder to the message body';

/** Why a campaign cannot be submitted (reference §7.1 rules 1 and 2), or null when it can. */
export async function submitProblem(tx: Executor, campaign: repo.LockedCampaign): Promise<string | null> {
  // A segment (user_selection `segment:<id>`) is an audience of its own: a campaign may go to it without lists.
  const audience = segmentIdOf(campaign.userSelection) !== null || (await repo.hasLists(tx, campaign.id));
  if (!audience || !campaign.subject.trim() || !campaign.fromField.trim() || !campaign.body.trim()) return CANNOT_SUBMIT;
  if (campaign.sendFormat === 'invite' && !campaign.body.includes('[CONFIRMATIONURL]')) return CANNOT_SUBMIT_INVITE;
  return null;
}

/**
 * Moves a campaign whose row this transaction has locked to `to`: 409 for a transition §7.1 does not allow, 422
 * when a submit's preconditions fail. Submitting hands the campaign to the sender in the same transaction.
 */
export async function moveCampaign(tx: Executor, campaign: repo.LockedCampaign, to: CampaignStatus): Promise<void> {
  if (!canMove(campaign.status, to)) throw new ConflictError(INVALID_TRANSITION);
  if (to === 'submitted') {
    const problem = await submitProblem(tx, campaign);
    if (problem) throw new ValidationError({ status: [problem], 'metadata.status': [problem] });
  }
  await repo.writeStatus(tx, campaign, to, new Date());
  if (to === 'submitted') await handOver(tx, campaign.id);
  await reportMove(tx, campaign, to);
}

/** Webhook events of a move, in its transaction; the totals are counted only when an endpoint wants them. */
async function reportMove(tx: Executor, campaign: repo.LockedCampaign, to: CampaignStatus): Promise<void> {
  const about = { id: campaign.id, subject: campaign.subject };
  await recordWebhookEvent(tx, 'campaign.status_changed', { campaign: about, from: campaign.status, to });
  if (to === 'sent' && (await isWebhookWanted(tx, 'campaign.finished'))) {
    const deliveries = await repo.deliveryTotals(tx, campaign.id);
    await recordWebhookEvent(tx, 'campaign.finished', {
      campaign: about,
      totals: { deliveries, views: campaign.views, bounces: campaign.bounceCount },
    });
  }
}

/** An administrator's change of status: locks, then moves. Answers false when there is no such campaign. */
export async function changeCampaignStatus(tx: Executor, campaignId: number, to: CampaignStatus): Promise<boolean> {
  const campaign = await repo.lockCampaign(tx, campaignId);
  if (!campaign) return false;
  await moveCampaign(tx, campaign, to);
  return true;
}

/**
 * A sent campaign that has records to send again (resend to further lists, retry of failed records) goes back to
 * `submitted`, outside the §7.1 table where `sent` is final: the sender then finishes it again (docs/api.md). The
 * caller holds the row lock and has marked what is to be sent.
 */
export async function reopenSentCampaign(tx: Executor, campaignId: number): Promise<boolean> {
  return repo.writeReopened(tx, campaignId, new Date());
}

/**
 * What submitting sets off (PATCH …/status, send, resume, requeue, a repeat's copy): marks the campaign's lists to be
 * frozen into delivery records. That is one small statement whatever the lists' size; a worker does the freezing
 * itself in chunks once the embargo has come (audience-freeze.ts), as reference §7.1's `prepared` step. Additive:
 * subscribers who already have a record are left alone, so resubmitting never duplicates, and a freeze that was
 * interrupted continues where it stopped.
 */
async function handOver(tx: Executor, campaignId: number): Promise<void> {
  await markCampaignLists(tx, campaignId);
  // `user_selection: segment:<id>`: the segment narrows the lists, or is the audience when there are none.
  await markCampaignSegment(tx, campaignId);
}
