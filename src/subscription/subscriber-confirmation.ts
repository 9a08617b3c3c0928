import type { AppContext } from '../context.js';
import { mailFailure } from '../mail/index.js';
import type { SubscriberRow } from './subscriber.repository.js';

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
