import type { AppContext } from '../context.js';
import type { MailToQueue } from '../mail/index.js';
import { translator, type Lang } from '../shared/i18n.js';
import { encodeJoinToken, JOIN_TOKEN_DAYS } from './list-join-token.js';
import type { ListRow } from './list.repository.js';
import { signupMail } from './signup.messages.js';
import { confirmationLink } from './subscriber-confirmation.js';
import type { SubscriberRow } from './subscriber.repository.js';

/*
 * The two mails a sign-up may cause, in the language of the page signed up on. They are queued (mail/mail-queue.ts),
 * never sent inside the request.
 */

/** The link of a list-join mail: a page with a button; only its POST joins (public/list-join.routes.ts). */
export function joinLink(ctx: AppContext, subscriber: Pick<SubscriberRow, 'uniqueId'>, list: Pick<ListRow, 'id'>): string {
  const token = encodeJoinToken(ctx.secrets.linkToken, { listId: list.id, uniqueId: subscriber.uniqueId });
  return `${ctx.config.publicUrl}/api/v2/public/list-subscriptions/confirm?token=${token}`;
}

/** The double opt-in mail: its link opens the confirm page in the look and language of the page signed up on. */
export function confirmationMail(ctx: AppContext, lang: Lang, pageId: number, subscriber: SubscriberRow, lists: readonly ListRow[]): MailToQueue {
  const t = translator(signupMail, lang);
  const link = `${confirmationLink(ctx, subscriber.uniqueId)}&page=${pageId}`;
  const names = lists.map((l) => `"${l.name}"`).join(', ');
  const text = [t('mailGreeting'), '', t('mailBody', { lists: names }), '', t('mailAction'), link, '', t('mailIgnore'), ''].join('\n');
  return { to: subscriber.email, subject: t('mailSubject'), text };
}

/** A confirmed subscriber signed up for lists they are not on: one mail, one join link per list. */
export function joinMail(ctx: AppContext, lang: Lang, subscriber: SubscriberRow, lists: readonly ListRow[]): MailToQueue {
  const t = translator(signupMail, lang);
  const links = lists.map((l) => `- ${l.name}:\n  ${joinLink(ctx, subscriber, l)}`);
  const text = [t('mailGreeting'), '', t('joinBody', { days: JOIN_TOKEN_DAYS }), '', ...links, '', t('mailIgnore'), ''].join('\n');
  return { to: subscriber.email, subject: t('joinSubject'), text };
}
