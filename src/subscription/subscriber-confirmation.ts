import type { AppContext } from '../context.js';
import { mailFailure } from '../mail/index.js';
import * as history from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import type { SubscriberList } from './list.schemas.js';
import { findSubscriberByUniqueId, listsOfSubscribers, updateSubscriber, type SubscriberRow } from './subscriber.repository.js';

/** The double opt-in link: the subscriber's unique id is the credential. */
export function confirmationLink(ctx: AppContext, uniqueId: string): string {
  return `${ctx.config.publicUrl}/api/v2/subscribers/confirm?uniqueId=${encodeURIComponent(uniqueId)}`;
}

/**
 * Sends the confirmation request. A failed delivery does not undo the subscriber: it is logged (by subscriber id,
 * never the address), and an administrator can still confirm the subscriber with `PUT … {confirmed: true}`.
 */
export async function sendConfirmationRequest(ctx: AppContext, subscriber: SubscriberRow): Promise<boolean> {
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
  try {
    await ctx.mailer.send({
      to: subscriber.email,
      subject: 'Please confirm your subscription',
      text,
      ...(subscriber.htmlEmail
        ? {
            html:
              '<p>Hello,</p><p>Please confirm your subscription by opening this link:</p>' +
              `<p><a href="${link}">${link}</a></p>` +
              '<p>If you did not ask to subscribe, ignore this message and nothing more will be sent.</p>',
          }
        : {}),
    });
    return true;
  } catch (err) {
    ctx.log.warn({ subscriberId: subscriber.id, failure: mailFailure(err) }, 'confirmation mail not sent');
    return false;
  }
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
