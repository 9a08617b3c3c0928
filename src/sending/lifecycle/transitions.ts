import type { CampaignStatus } from '../../messaging/index.js';

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

export function canMove(from: string, to: CampaignStatus): boolean {
  return (TRANSITIONS[from as CampaignStatus] ?? []).includes(to);
}
