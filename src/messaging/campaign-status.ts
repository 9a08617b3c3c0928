import { eq, sql } from 'drizzle-orm';
import { segmentIdOf } from '../segments/campaign-segment.js';
import type { Executor } from '../db/client.js';
import { campaigns, listCampaigns } from '../db/schema/index.js';
import { ConflictError, ValidationError } from '../shared/errors.js';
import { onCampaignSubmitted } from '../sending/submit.js';
import type { CampaignRow } from './campaign.repository.js';
import type { CampaignStatus } from './campaign.schemas.js';

/** Reference §7.1: from → allowed targets. Enforced on every change, the sender's included. */
export const TRANSITIONS: Readonly<Record<CampaignStatus, readonly CampaignStatus[]>> = {
  draft: ['submitted'],
  suspended: ['submitted'],
  submitted: ['prepared', 'inprocess', 'suspended'],
  prepared: ['inprocess', 'suspended'],
  inprocess: ['sent', 'suspended', 'submitted'],
  requeued: ['inprocess', 'suspended'],
  sent: [],
};

export const INVALID_TRANSITION = 'Invalid status transition';
const CANNOT_SUBMIT = 'Cannot submit. Add at least one list and fill subject, from field, and message body';
const CANNOT_SUBMIT_INVITE = 'Cannot submit invitation. Add [CONFIRMATIONURL] placeholder to the message body';

export function canMove(from: string, to: CampaignStatus): boolean {
  return (TRANSITIONS[from as CampaignStatus] ?? []).includes(to);
}

/** Why a campaign cannot be submitted (reference §7.1 rules 1 and 2), or null when it can. */
export async function submitProblem(tx: Executor, campaign: CampaignRow): Promise<string | null> {
  const [link] = await tx.select({ id: listCampaigns.id }).from(listCampaigns).where(eq(listCampaigns.campaignId, campaign.id)).limit(1);
  // A segment (user_selection `segment:<id>`) is an audience of its own: a campaign may go to it without lists.
  const audience = link !== undefined || segmentIdOf(campaign.userSelection) !== null;
  if (!audience || !campaign.subject.trim() || !campaign.fromField.trim() || !campaign.body.trim()) return CANNOT_SUBMIT;
  if (campaign.sendFormat === 'invite' && !campaign.body.includes('[CONFIRMATIONURL]')) return CANNOT_SUBMIT_INVITE;
  return null;
}

/**
 * Moves a campaign to `to` inside `tx`: 409 for a transition §7.1 does not allow, 422 when a submit's preconditions
 * fail. Submitting hands the campaign to the sender (which freezes its audience) in the same transaction.
 */
export async function changeStatus(tx: Executor, campaign: CampaignRow, to: CampaignStatus): Promise<void> {
  // Row lock: two status changes (an administrator and a worker) are applied one after the other.
  const [locked] = await tx.execute(sql`select status from campaigns where id = ${campaign.id} for update`).then(
    (r) => (r as unknown as { rows: { status: string }[] }).rows,
  );
  const from = locked?.status ?? campaign.status;
  if (!canMove(from, to)) throw new ConflictError(INVALID_TRANSITION);
  if (to === 'submitted') {
    const problem = await submitProblem(tx, campaign);
    if (problem) throw new ValidationError({ status: [problem], 'metadata.status': [problem] });
  }
  const now = new Date();
  await tx
    .update(campaigns)
    .set({
      status: to,
      updatedAt: now,
      ...(to === 'inprocess' && !campaign.sendStart ? { sendStart: now } : {}),
      ...(to === 'sent' ? { sentAt: now } : {}),
    })
    .where(eq(campaigns.id, campaign.id));
  if (to === 'submitted') await onCampaignSubmitted(tx, campaign.id);
}
