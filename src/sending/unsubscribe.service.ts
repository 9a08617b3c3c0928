import type { AppContext } from '../context.js';
import { findCampaign } from '../messaging/index.js';
import { insertHistory, findSubscriberByUniqueId, decodeUnsubscribeToken, type HistoryOrigin } from '../subscription/index.js';
import * as repo from './unsubscribe.repository.js';
import type { ListName } from './unsubscribe.repository.js';
import { addSubscriptions, seal, unseal } from '../public/index.js';

/*
 * The List-Unsubscribe link of a campaign mail. "Unsubscribe" means: off the lists the campaign was sent to, and no
 * more of this campaign. It is not the blacklist: phpList keeps blacklisting at a separate link, and a subscriber
 * who leaves one list may well want the others (docs/api.md).
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

/** What the confirmation page asks about: the campaign's lists the subscriber is on. Changes nothing. */
export async function preview(ctx: AppContext, token: string) {
  const target = await resolve(ctx, token);
  if (target === null || target === FORWARDED) return target;
  const lists = await repo.subscribedCampaignLists(ctx.db, target.campaignId, target.subscriberId);
  return { maskedEmail: target.maskedEmail, uniqueId: target.uniqueId, lists };
}

export type UnsubscribeVia = 'one-click' | 'page';

/**
 * Unsubscribes at once, in one transaction: off the campaign's lists, a history entry naming them, and the
 * subscriber's still-queued delivery of the campaign skipped. Doing it again changes nothing and records nothing.
 */
export async function unsubscribe(ctx: AppContext, token: string, via: UnsubscribeVia, origin: HistoryOrigin, reason = '') {
  const target = await resolve(ctx, token);
  if (target === null || target === FORWARDED) return target;
  const removed = await ctx.db.transaction(async (tx) => {
    const lists = await repo.removeFromCampaignLists(tx, target.campaignId, target.subscriberId);
    const skipped = await repo.skipQueuedDeliveries(
      tx,
      target.campaignId,
      target.subscriberId,
      `Unsubscribed by the unsubscribe link of campaign ${target.campaignId}`,
    );
    if (lists.length > 0 || skipped > 0) {
      const names = lists.length > 0 ? lists.map((l) => `"${l.name}" (#${l.id})`).join(', ') : 'no list';
      const detail =
        `Unsubscribed from ${names} by the unsubscribe link of campaign ${target.campaignId}` +
        ` (${via === 'one-click' ? 'one-click, RFC 8058' : 'confirmation page'})` +
        (skipped > 0 ? '; its queued mail of this campaign was skipped' : '') +
        (reason ? `. Reason given: ${reason}` : '');
      await insertHistory(tx, target.subscriberId, origin, 'Unsubscribed', detail);
    }
    return lists;
  });
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
    const added = await addSubscriptions(
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
