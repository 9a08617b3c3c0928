import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { mailQueued, queueMails, type MailKind, type MailToQueue } from '../mail/index.js';
import { TooManyRequestsError } from '../shared/errors.js';
import type { Lang } from '../shared/i18n.js';
import { takeStrict } from '../shared/rate-limit.js';
import { blacklistedAmong } from './blacklist.repository.js';
import { decodeJoinToken } from './list-join-token.js';
import { insertSubscriptions } from './list-member.repository.js';
import { findList, type ListRow } from './list.repository.js';
import { confirmationMail, joinMail } from './signup.mail.js';
import { lookUpSignUp, writeSignUp } from './signup.repository.js';
import { reportCreated } from './subscriber-webhooks.js';
import { insertHistory } from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { findSubscriberByUniqueId, type SubscriberRow } from './subscriber.repository.js';
import { newSubscriberHtmlEmail } from './subscriber-defaults.js';
import { newSubscriberUniqueId } from './subscriber-unique-id.js';

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
 * Every outcome runs the same statements in the same order — two rate-limit takes, one lookup, one write, one queue
 * write (of zero or one mail), and wakes the drainer — so that the answer's time says nothing about the address
 * (issue 22; bench/signup-timing.ts). Throws TooManyRequestsError past the limits.
 */
export async function signUp(ctx: AppContext, signup: SignUp, origin: HistoryOrigin): Promise<void> {
  await takeSignUp(ctx, signup.email, origin.ip);
  const listIds = signup.lists.map((l) => l.id);
  await ctx.db.transaction(async (tx) => {
    const { barred, subscriber, memberOf } = await lookUpSignUp(tx, signup.email, listIds);
    const blocked = barred || subscriber?.blacklisted === true;
    const create = !subscriber && !blocked;
    const uniqueId = newSubscriberUniqueId();
    const { created, reached } = await writeSignUp(tx, {
      create: create ? { email: signup.email, uniqueId, confirmed: !signup.doubleOptIn, htmlEmail: newSubscriberHtmlEmail(ctx) } : null,
      existingId: subscriber && !blocked && !subscriber.confirmed ? subscriber.id : null,
      values: create ? signup.values : [],
      listIds: blocked || subscriber?.confirmed ? [] : listIds,
      createdDetail: `Created on subscribe page "${signup.page.title}" (#${signup.page.id})`,
      where: `subscribe page "${signup.page.title}" (#${signup.page.id})`,
      ip: origin.ip,
      systemInfo: origin.userAgent ? `User-Agent: ${origin.userAgent.slice(0, 255)}` : null,
    });
    if (created) await reportCreated(tx, [created]);
    const { kind, mail } = mailOf(ctx, signup, { blocked, reached, subscriber: created ?? subscriber, memberOf });
    // Written whether or not there is a mail: an empty write costs what a full one does.
    await queueMails(ctx, tx, kind, mail ? [mail] : []);
  });
  mailQueued(ctx);
}

/** The one mail a sign-up causes, if any (see signUp). */
function mailOf(
  ctx: AppContext,
  signup: SignUp,
  outcome: { blocked: boolean; reached: boolean; subscriber: SubscriberRow | null; memberOf: ReadonlySet<number> },
): { kind: MailKind; mail: MailToQueue | null } {
  const { subscriber } = outcome;
  if (outcome.blocked || !subscriber) return { kind: 'confirmation', mail: null };
  if (subscriber.confirmed) {
    const missing = signup.lists.filter((l) => !outcome.memberOf.has(l.id));
    // A subscriber this sign-up created confirmed (single opt-in) needs no mail; nor one on every list already.
    const joining = outcome.reached ? [] : missing;
    return { kind: 'list-join', mail: joining.length > 0 ? joinMail(ctx, signup.lang, subscriber, joining) : null };
  }
  // Created unconfirmed, or unconfirmed already: the double opt-in mail. `reached` is false when another writer
  // stored the address meanwhile: it is theirs, this sign-up leaves it alone.
  if (!outcome.reached) return { kind: 'confirmation', mail: null };
  return { kind: 'confirmation', mail: confirmationMail(ctx, signup.lang, signup.page.id, subscriber, signup.lists) };
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
