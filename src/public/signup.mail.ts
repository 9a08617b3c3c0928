import type { AppContext } from '../context.js';
import { mailFailure } from '../mail/index.js';
import { joinLink, JOIN_TOKEN_DAYS, confirmationLink, type ListRow, type SubscriberRow } from '../subscription/index.js';
import { translator, type Lang } from '../shared/i18n.js';
import { signup } from './messages/signup.js';
import type { SignupForm } from './signup.service.js';

/*
 * The mails of the sign-up form, in the page's language. A failed send is logged (by subscriber id, never the
 * address) and not fatal: the visitor's answer is the same whatever happens to the mail.
 */

async function send(ctx: AppContext, subscriber: SubscriberRow, subject: string, text: string, what: string) {
  try {
    await ctx.mailer.send({ to: subscriber.email, subject, text });
  } catch (err) {
    ctx.log.warn({ subscriberId: subscriber.id, failure: mailFailure(err) }, `${what} not sent`);
  }
}

/** The double opt-in mail: its link opens the confirm page in the look and language of the page signed up on. */
export async function sendSignupConfirmation(ctx: AppContext, form: SignupForm, subscriber: SubscriberRow, lists: readonly ListRow[]) {
  const t = translator(signup, form.lang);
  const link = `${confirmationLink(ctx, subscriber.uniqueId)}&page=${form.id}`;
  const names = lists.map((l) => `"${l.name}"`).join(', ');
  const text = [t('mailGreeting'), '', t('mailBody', { lists: names }), '', t('mailAction'), link, '', t('mailIgnore'), ''].join('\n');
  await send(ctx, subscriber, t('mailSubject'), text, 'confirmation mail');
}

/** A confirmed subscriber signed up for lists they are not on: one mail, one join link per list. */
export async function sendJoinRequests(ctx: AppContext, lang: Lang, subscriber: SubscriberRow, lists: readonly ListRow[]) {
  const t = translator(signup, lang);
  const links = lists.map((l) => `- ${l.name}:\n  ${joinLink(ctx, subscriber, l)}`);
  const text = [t('mailGreeting'), '', t('joinBody', { days: JOIN_TOKEN_DAYS }), '', ...links, '', t('mailIgnore'), ''].join('\n');
  await send(ctx, subscriber, t('joinSubject'), text, 'list-join mail');
}
