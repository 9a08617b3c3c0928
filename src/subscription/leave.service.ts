import type { Executor } from '../db/client.js';
import * as repo from './leave.repository.js';
import type { LeftList } from './leave.repository.js';
import { insertHistory } from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { recordWebhookEvent } from '../webhooks/index.js';

/*
 * Leaving: the one way a subscriber comes off lists at their own request, whichever page they ask on (the
 * unsubscribe link of a campaign mail and its one-click POST, the preference centre, the subscribe-page API). Its
 * effects are always the same, in the caller's transaction: the memberships go, the subscriber's mail still queued
 * for campaigns whose audience they are no longer in is skipped (with the campaigns' counters), and one
 * `Unsubscribed` history entry says what happened. The consent rule it keeps is in docs/api.md, "Consent".
 */

export type { LeftList } from './leave.repository.js';

/** What to leave: these lists, every list, or what the unsubscribe link of a campaign stands for. */
export type LeaveScope = { readonly lists: readonly number[] } | { readonly everyList: true } | { readonly campaign: number };

export interface LeaveRequest {
  readonly scope: LeaveScope;
  readonly origin: HistoryOrigin;
  /** The history entry's detail, from the lists left (`"News" (#3), "Offers" (#4)`, or null for none) and mails skipped. */
  readonly describe: (left: string | null, skipped: number) => string;
  /** Recorded on each skipped delivery (its last response). */
  readonly skipReason: string;
}

export interface Left {
  readonly lists: LeftList[];
  /** Queued mail skipped, over every campaign. */
  readonly skipped: number;
}

/** `"News" (#3), "Offers" (#4)`: how history entries name lists. */
export const listNames = (lists: readonly LeftList[]) => lists.map((l) => `"${l.name}" (#${l.id})`).join(', ');

/**
 * The lists a scope stands for, or null for every list. A campaign's link stands for the lists the campaign was
 * sent (and resent) to, or every list when its segment was the whole audience (it reached people through any list
 * they were on) — and so for a campaign with no lists at all.
 */
async function listsOf(db: Executor, scope: LeaveScope): Promise<readonly number[] | null> {
  if ('lists' in scope) return scope.lists;
  if ('everyList' in scope) return null;
  const campaign = await repo.campaignLists(db, scope.campaign);
  if (!campaign) return [];
  return campaign.segmentAlone || campaign.listIds.length === 0 ? null : campaign.listIds;
}

/** What leaving would take the subscriber off now, by name. Changes nothing (the unsubscribe page's question). */
export async function previewLeave(db: Executor, subscriberId: number, scope: LeaveScope): Promise<LeftList[]> {
  return repo.membershipsAmong(db, subscriberId, await listsOf(db, scope));
}

/**
 * Leaves, in the caller's transaction (see the file's comment). Doing it again changes nothing and records nothing.
 * Freeze chunks under way are waited for first (leave.repository.ts, LEAVE_LOCK), so none can queue mail the leave
 * does not see.
 */
export async function leaveInTransaction(tx: Executor, subscriberId: number, request: LeaveRequest): Promise<Left> {
  await repo.lockOutFreezes(tx);
  const campaignId = 'campaign' in request.scope ? request.scope.campaign : null;
  const lists = await repo.removeMemberships(tx, subscriberId, await listsOf(tx, request.scope));
  const skipped = await repo.skipQueuedMail(tx, subscriberId, request.skipReason, campaignId);
  if (lists.length > 0 || skipped > 0) {
    await insertHistory(tx, subscriberId, request.origin, 'Unsubscribed', request.describe(lists.length > 0 ? listNames(lists) : null, skipped));
  }
  if (lists.length > 0) {
    await recordWebhookEvent(tx, 'subscriber.unsubscribed', {
      subscriber: { id: subscriberId },
      lists: lists.map((l) => ({ id: l.id, name: l.name })),
      campaign_id: campaignId,
    });
  }
  return { lists, skipped };
}

/** Leaves in a transaction of its own. */
export async function leave(db: Executor, subscriberId: number, request: LeaveRequest): Promise<Left> {
  return db.transaction((tx) => leaveInTransaction(tx, subscriberId, request));
}
