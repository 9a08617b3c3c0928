import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { queueMailReferences, registerMailRenderer, type MailToQueue } from '../mail/index.js';
import { isEmail } from './subscriber-import.columns.js';
import * as history from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import type { SubscriberList } from './list.schemas.js';
import { awaitingConfirmation } from './subscriber-confirmation.repository.js';
import { findSubscriberByUniqueId, listsOfSubscribers, updateSubscriber, type SubscriberRow } from './subscriber.repository.js';

/** The double opt-in link: the subscriber's unique id is the credential. */
export function confirmationLink(ctx: AppContext, uniqueId: string): string {
  return `${ctx.config.publicUrl}/api/v2/subscribers/confirm?uniqueId=${encodeURIComponent(uniqueId)}`;
}

/** The confirmation request an administrator's `request_confirmation` or an import sends (From is MAIL_FROM). */
export function confirmationRequestMail(ctx: AppContext, subscriber: Pick<SubscriberRow, 'email' | 'uniqueId' | 'htmlEmail'>): MailToQueue {
  const link = confirmationLink(ctx, subscriber.uniqueId);
  const text = [
    'Hello,',
    '',
    'Please confirm your subscription by opening this link:',
    '',
    link,
    '',
    'If you did not ask to subscribe, ignore this message and nothing more will be sent.',
  ].join('\n');
  const html =
    '<p>Hello,</p><p>Please confirm your subscription by opening this link:</p>' +
    `<p><a href="${link}">${link}</a></p>` +
    '<p>If you did not ask to subscribe, ignore this message and nothing more will be sent.</p>';
  return { to: subscriber.email, subject: 'Please confirm your subscription', text, ...(subscriber.htmlEmail ? { html } : {}) };
}

/**
 * Queues the confirmation request of each of these subscribers, by reference, in the caller's transaction: one
 * insert for the whole batch, nothing rendered (an import's batch writes a few dozen bytes a subscriber instead of
 * each rendered mail). The caller passes subscribers it leaves unconfirmed, not blacklisted and with a usable
 * address; the mail is rendered when it is sent (`renderConfirmationRequests`). Answers how many were queued; the
 * caller calls `mailQueued` after its transaction commits.
 */
export async function queueConfirmationRequests(ctx: AppContext, tx: Executor, ids: readonly number[]): Promise<number> {
  await queueMailReferences(ctx, tx, 'confirmation', ids);
  return ids.length;
}

/**
 * The confirmation requests queued by reference, made when the drainer sends them, from the subscriber as they are
 * then: one read for the drainer's batch. Whoever was confirmed, blacklisted (flag or blacklist entry) or deleted
 * meanwhile, or whose address is no longer usable, is left out, and the mail is dropped unsent.
 */
async function renderConfirmationRequests(ctx: AppContext, ids: readonly number[]): Promise<ReadonlyMap<number, MailToQueue>> {
  const waiting = await awaitingConfirmation(ctx.db, ids);
  return new Map(waiting.filter((s) => isEmail(s.email)).map((s) => [s.id, confirmationRequestMail(ctx, s)]));
}

/**
 * Lets the mail area render the confirmation requests this area queues by reference: buildApp calls it once per
 * application (mail sits below subscription in the area order and cannot import it; see mail/mail-renderers.ts).
 */
export function registerConfirmationMail(ctx: AppContext): void {
  registerMailRenderer(ctx, 'confirmation', renderConfirmationRequests);
}

export type ConfirmOutcome = { outcome: 'missing' | 'unknown' } | { outcome: 'confirmed'; subscriber: SubscriberRow; lists: SubscriberList[] };

/**
 * The double opt-in link (public/confirm.routes.ts). Known ids are confirmed (again, harmlessly); only a real change
 * is recorded. Answers the lists the subscriber is on, for the page.
 */
export async function confirmByLink(ctx: AppContext, uniqueId: string | undefined, origin: HistoryOrigin): Promise<ConfirmOutcome> {
  if (!uniqueId) return { outcome: 'missing' };
  // No stored id is that long or holds NUL (which PostgreSQL would refuse to compare): the page's own 404.
  if (uniqueId.length > 64 || uniqueId.includes('\0')) return { outcome: 'unknown' };
  const row = await findSubscriberByUniqueId(ctx.db, uniqueId);
  if (!row) return { outcome: 'unknown' };
  if (!row.confirmed) {
    await ctx.db.transaction(async (tx) => {
      await updateSubscriber(tx, row.id, { confirmed: true });
      await history.insertHistory(tx, row.id, origin, 'Subscription confirmed', 'confirmed = true *changed* from false');
    });
  }
  const lists = (await listsOfSubscribers(ctx.db, [row.id])).get(row.id) ?? [];
  return { outcome: 'confirmed', subscriber: { ...row, confirmed: true }, lists };
}
