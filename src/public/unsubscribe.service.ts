import type { AppContext } from '../context.js';
import { findCampaign } from '../messaging/index.js';
import {
  insertHistory,
  findSubscriberByUniqueId,
  decodeUnsubscribeToken,
  joinLists,
  leave,
  previewLeave,
  type HistoryOrigin,
} from '../subscription/index.js';
import * as repo from './unsubscribe.repository.js';
import type { ListName } from './unsubscribe.repository.js';
import { seal, unseal } from './sealed-token.js';

/*
 * The List-Unsubscribe link of a campaign mail. "Unsubscribe" means (docs/api.md "Consent"): off the lists the
 * campaign was sent to — every list when its audience was a segment alone — and no more of this campaign. Leaving
 * itself is subscription's (leave.service.ts); this file is the link's side: the token, the masked address, the
 * undo. It is not the blacklist: phpList keeps blacklisting at a separate link, and a subscriber who leaves one list
 * may well want the others.
 */

export interface UnsubscribeTarget {
  readonly subscriberId: number;
  readonly uniqueId: string;
  readonly campaignId: number;
  /** The address as the page may show it to whoever holds the link: `j***@example.com`. */
  readonly maskedEmail: string;
}

/** `john@example.com` → `j***@example.com`: enough for its owner to recognise, little for anyone else. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** The unique id of forwarded copies (reference §7.3): their links name no subscriber. */
export const FORWARDED = 'forwarded';

/**
 * The subscriber and campaign a token names; `forwarded` for the link in a forwarded copy; null for a forged or
 * garbled token or one whose parts are gone.
 */
async function resolve(ctx: AppContext, token: string): Promise<UnsubscribeTarget | typeof FORWARDED | null> {
  const decoded = decodeUnsubscribeToken(ctx.secrets.linkToken, token);
  if (!decoded) return null;
  if (decoded.uniqueId === FORWARDED) return FORWARDED;
  const [subscriber, campaign] = await Promise.all([findSubscriberByUniqueId(ctx.db, decoded.uniqueId), findCampaign(ctx.db, decoded.campaignId)]);
  if (!subscriber || !campaign) return null;
  return { subscriberId: subscriber.id, uniqueId: subscriber.uniqueId, campaignId: campaign.id, maskedEmail: maskEmail(subscriber.email) };
}

/** What the confirmation page asks about: the lists the link would take the subscriber off. Changes nothing. */
export async function preview(ctx: AppContext, token: string) {
  const target = await resolve(ctx, token);
  if (target === null || target === FORWARDED) return target;
  const lists = await previewLeave(ctx.db, target.subscriberId, { campaign: target.campaignId });
  return { maskedEmail: target.maskedEmail, uniqueId: target.uniqueId, lists };
}

export type UnsubscribeVia = 'one-click' | 'page';

/**
 * Unsubscribes at once, in one transaction (subscription's leave): off the campaign's lists (every list for a
 * segment-alone campaign), a history entry naming them, and the subscriber's still-queued mail of this campaign —
 * and of any other whose audience they left with it — skipped. Doing it again changes nothing and records nothing.
 */
export async function unsubscribe(ctx: AppContext, token: string, via: UnsubscribeVia, origin: HistoryOrigin, reason = '') {
  const target = await resolve(ctx, token);
  if (target === null || target === FORWARDED) return target;
  const link = `the unsubscribe link of campaign ${target.campaignId}`;
  const left = await leave(ctx.db, target.subscriberId, {
    scope: { campaign: target.campaignId },
    origin,
    describe: (names, skipped) =>
      `Unsubscribed from ${names ?? 'no list'} by ${link}` +
      ` (${via === 'one-click' ? 'one-click, RFC 8058' : 'confirmation page'})` +
      (skipped > 0 ? '; its queued mail of this campaign was skipped' : '') +
      (reason ? `. Reason given: ${reason}` : ''),
    skipReason: `Unsubscribed by ${link}`,
  });
  const removed: ListName[] = left.lists;
  ctx.log.info({ subscriberId: target.subscriberId, campaignId: target.campaignId, lists: removed.length, via }, 'unsubscribed by link');
  const resubscribe =
    removed.length > 0
      ? seal(ctx.secrets.linkToken, RESUBSCRIBE_DOMAIN, [target.uniqueId, removed.map((l) => l.id).join(',')], RESUBSCRIBE_DAYS * 86_400)
      : null;
  return { maskedEmail: target.maskedEmail, uniqueId: target.uniqueId, removed, resubscribe };
}

/** How long the unsubscribe page offers to undo. */
export const RESUBSCRIBE_DAYS = 7;
const RESUBSCRIBE_DOMAIN = 'resubscribe';

export type Resubscribed = { readonly maskedEmail: string; readonly uniqueId: string; readonly lists: ListName[] } | 'expired' | null;

/**
 * The "resubscribe" button of the page after unsubscribing: puts the subscriber back on the lists the unsubscribe
 * took them off (those that still exist), with a history entry. The signed token names exactly those lists and
 * expires after RESUBSCRIBE_DAYS; using it again changes nothing.
 */
export async function resubscribe(ctx: AppContext, token: string, origin: HistoryOrigin): Promise<Resubscribed> {
  const opened = unseal(ctx.secrets.linkToken, RESUBSCRIBE_DOMAIN, token);
  if (opened === null || opened === 'expired') return opened;
  const [uniqueId = '', ids = ''] = opened.fields;
  const subscriber = await findSubscriberByUniqueId(ctx.db, uniqueId);
  if (!subscriber) return null;
  const listIds = ids
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  const lists = await ctx.db.transaction(async (tx) => {
    const existing = await repo.listNames(tx, listIds);
    const added = await joinLists(
      tx,
      subscriber.id,
      existing.map((l) => l.id),
    );
    if (added.length > 0) {
      const names = existing
        .filter((l) => added.includes(l.id))
        .map((l) => `"${l.name}" (#${l.id})`)
        .join(', ');
      await insertHistory(tx, subscriber.id, origin, 'Subscribed', `Resubscribed to ${names} from the unsubscribe page`);
    }
    return existing;
  });
  return { maskedEmail: maskEmail(subscriber.email), uniqueId: subscriber.uniqueId, lists };
}
