import type { AppContext } from '../context.js';
import { encodeJoinToken, JOIN_TOKEN_DAYS } from './list-join-token.js';
import type { ListRow } from './list.repository.js';
import type { SubscriberRow } from './subscriber.repository.js';

/** The link of a list-join mail: `PUBLIC_URL/api/v2/public/list-subscriptions/confirm?token=…`. */
export function joinLink(ctx: AppContext, subscriber: SubscriberRow, list: ListRow): string {
  const token = encodeJoinToken(ctx.secrets.linkToken, { listId: list.id, uniqueId: subscriber.uniqueId });
  return `${ctx.config.publicUrl}/api/v2/public/list-subscriptions/confirm?token=${token}`;
}

/**
 * Asks a confirmed subscriber whether to join a list someone signed their address up for on a subscribe page.
 * A failed send is logged (by subscriber id, never the address), not fatal: the visitor's answer is the same.
 */
export async function sendJoinRequest(ctx: AppContext, subscriber: SubscriberRow, list: ListRow): Promise<void> {
  const link = joinLink(ctx, subscriber, list);
  try {
    await ctx.mailer.send({
      to: subscriber.email,
      subject: 'Please confirm your subscription',
      text:
        `Someone, hopefully you, asked to subscribe this address to the list "${list.name}".\n\n` +
        `To confirm, open this link (valid for ${JOIN_TOKEN_DAYS} days):\n${link}\n\n` +
        'If you did not ask for this, ignore this message: nothing changes.\n',
    });
  } catch (err) {
    ctx.log.warn({ subscriberId: subscriber.id, listId: list.id, err: (err as Error).message }, 'list-join mail not sent');
  }
}
