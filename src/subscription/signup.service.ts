import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { mailQueued, queueMail } from '../mail/index.js';
import { TooManyRequestsError } from '../shared/errors.js';
import type { Lang } from '../shared/i18n.js';
import { takeStrict } from '../shared/rate-limit.js';
import { blacklistedAmong } from './blacklist.repository.js';
import { decodeJoinToken } from './list-join-token.js';
import { findSubscribersByEmails, insertSubscribers, insertSubscriptions } from './list-member.repository.js';
import { findList, type ListRow } from './list.repository.js';
import { confirmationMail, joinMail } from './signup.mail.js';
import { isMember, upsertAttributeValues } from './subscribe-page.repository.js';
import { insertHistory } from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { findSubscriberByUniqueId } from './subscriber.repository.js';
import { newSubscriberHtmlEmail } from './subscriber-defaults.js';

/*
 * Joining: the one sign-up of a subscribe page, for its hosted form (public/signup.*) and its JSON API
 * (subscribe-page-public.*), and the list-join link a confirmed subscriber is mailed. Both callers check the values
 * with signup.check.ts first; what happens then is the same whoever asked.
 *
 * Anyone can post any address, so (issue 17): nothing is subscribed without the address owner's consent (a new or
 * unconfirmed address gets the double opt-in mail, a confirmed one a link that adds the list); sign-ups are limited
 * per client and per address (at most one mail to an address in 10 minutes), in the database so that every process
 * shares the counts; and every outcome answers the same, in the same time (issue 22): the mails are queued in the
 * transaction and leave after the answer.
 */

/** One sign-up (so one mail) per e-mail address in any MAIL_WINDOW seconds; SUBSCRIBE_PAGE_CLIENT_LIMIT per client. */
const MAIL_WINDOW = 600;
export const TOO_MANY_CLIENT = 'Too many sign-ups from your address. Try again later.';
export const TOO_MANY_ADDRESS = 'This e-mail address was signed up a moment ago. Try again later.';

/** A checked sign-up on a subscribe page. */
export interface SignUp {
  readonly page: { readonly id: number; readonly title: string };
  /** The language of the page's mails. */
  readonly lang: Lang;
  readonly email: string;
  /** The lists chosen, among those the page offers. */
  readonly lists: readonly ListRow[];
  /** Checked values (signup.check.ts), stored for a subscriber this sign-up creates. */
  readonly values: readonly { definitionId: number; value: string }[];
  /** Double opt-in unless the page's `double_optin` setting says otherwise. */
  readonly doubleOptIn: boolean;
}

/**
 * Both limits of a sign-up, taken before anything is looked up (so a refusal says nothing about the address): the
 * client's first, so that a client over its limit cannot use up an address's.
 */
async function takeSignUp(ctx: AppContext, email: string, clientIp: string | null): Promise<void> {
  const client = await takeStrict(ctx.db, `page-client:${clientIp ?? 'unknown'}`, MAIL_WINDOW, ctx.config.subscribePageClientLimit);
  if (!client.granted) throw new TooManyRequestsError(TOO_MANY_CLIENT, client.retryAfter);
  // The address itself is not stored in the rate table: a digest names its window.
  const digest = createHash('sha256').update(email.toLowerCase()).digest('base64url');
  const address = await takeStrict(ctx.db, `page-address:${digest}`, MAIL_WINDOW, 1);
  if (!address.granted) throw new TooManyRequestsError(TOO_MANY_ADDRESS, address.retryAfter);
}

/**
 * One sign-up, in one transaction with the mail it causes:
 * - a blacklisted address (entry or flag): nothing;
 * - a confirmed subscriber: nothing is changed; when some chosen lists are new to them, one mail with a join link
 *   per list (consent for every list), otherwise no mail at all;
 * - a new address: created (unconfirmed, or confirmed on a single opt-in page) with its attribute values and a
 *   history entry, subscribed; an unconfirmed one: subscribed to the chosen lists, its data left alone. Either gets
 *   one confirmation mail naming the lists, except a new subscriber of a single opt-in page, who gets none.
 * Throws TooManyRequestsError past the limits.
 */
export async function signUp(ctx: AppContext, signup: SignUp, origin: HistoryOrigin): Promise<void> {
  await takeSignUp(ctx, signup.email, origin.ip);
  const where = `subscribe page "${signup.page.title}" (#${signup.page.id})`;
  const queued = await ctx.db.transaction(async (tx): Promise<boolean> => {
    if ((await blacklistedAmong(tx, [signup.email])).size > 0) return false;
    let [subscriber] = await findSubscribersByEmails(tx, [signup.email]);
    if (subscriber?.blacklisted) return false;
    if (subscriber?.confirmed) {
      const known = subscriber;
      const memberships = await Promise.all(signup.lists.map((l) => isMember(tx, l.id, known.id)));
      const missing = signup.lists.filter((_, i) => !memberships[i]);
      if (missing.length === 0) return false;
      await queueMail(ctx, tx, 'list-join', joinMail(ctx, signup.lang, known, missing));
      return true;
    }
    let createdConfirmed = false;
    if (!subscriber) {
      const uniqueId = randomBytes(16).toString('hex');
      const [id] = await insertSubscribers(tx, [
        { email: signup.email, uniqueId, confirmed: !signup.doubleOptIn, htmlEmail: newSubscriberHtmlEmail(ctx) },
      ]);
      // Another writer stored the address in the meantime: it is theirs, this sign-up leaves it alone.
      if (id === undefined) return false;
      await insertHistory(tx, id, origin, 'Subscriber created', `Created on ${where}`);
      await upsertAttributeValues(tx, id, [...signup.values]);
      [subscriber] = await findSubscribersByEmails(tx, [signup.email]);
      createdConfirmed = !signup.doubleOptIn;
    }
    const added: string[] = [];
    for (const list of signup.lists) if ((await insertSubscriptions(tx, list.id, [subscriber!.id])).size > 0) added.push(list.name);
    if (added.length > 0) {
      await insertHistory(tx, subscriber!.id, origin, 'Subscribed', `Subscribed to ${added.map((n) => `"${n}"`).join(', ')} on ${where}`);
    }
    if (createdConfirmed) return false;
    await queueMail(ctx, tx, 'confirmation', confirmationMail(ctx, signup.lang, signup.page.id, subscriber!, signup.lists));
    return true;
  });
  if (queued) mailQueued(ctx);
}

export type JoinTarget = { readonly subscriberId: number; readonly listName: string } | 'missing' | 'unknown';

/** What a list-join link names, without changing anything (its page shows a button: mail scanners fetch links). */
export async function peekJoin(ctx: AppContext, token: string | undefined): Promise<JoinTarget> {
  if (!token) return 'missing';
  const target = decodeJoinToken(ctx.secrets.linkToken, token);
  if (!target) return 'unknown';
  const [subscriber, list] = await Promise.all([findSubscriberByUniqueId(ctx.db, target.uniqueId), findList(ctx.db, target.listId)]);
  if (!subscriber || subscriber.blacklisted || !list) return 'unknown';
  if ((await blacklistedAmong(ctx.db, [subscriber.email])).size > 0) return 'unknown';
  return { subscriberId: subscriber.id, listName: list.name };
}

/** The POST of a list-join link's page: adds the subscriber to the list it names (once), with a history entry. */
export async function joinByToken(ctx: AppContext, token: string | undefined, origin: HistoryOrigin): Promise<JoinTarget> {
  const target = await peekJoin(ctx, token);
  if (typeof target === 'string') return target;
  const { listId } = decodeJoinToken(ctx.secrets.linkToken, token!)!;
  await ctx.db.transaction(async (tx) => {
    const added = await insertSubscriptions(tx, listId, [target.subscriberId]);
    if (added.has(target.subscriberId)) {
      await insertHistory(tx, target.subscriberId, origin, 'Subscribed', `Joined list "${target.listName}" by the link of the confirmation mail`);
    }
  });
  return target;
}
