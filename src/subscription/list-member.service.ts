import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { mailQueued, queueMail, type MailToQueue } from '../mail/index.js';
import { confirmationLink } from './subscriber-confirmation.js';
import { toPage } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import { blacklistedAmong } from './blacklist.repository.js';
import * as repo from './list-member.repository.js';
import type { AddMembersBody, Subscription } from './list-member.schemas.js';
import * as history from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { toSubscriberList, type ListRow } from './list.repository.js';
import { LIST_NOT_FOUND, requireOwnedList } from './list.service.js';
import { NotFoundError } from '../shared/errors.js';
import { loginNameOf } from '../identity/index.js';
import { listMemberPage } from './subscriber-page.repository.js';
import { toSubscriberOnly, type SubscriberRow } from './subscriber.repository.js';
import { newSubscriberHtmlEmail } from './subscriber-defaults.js';
import { newSubscriberUniqueId } from './subscriber-unique-id.js';

/** One page of a list's members with the list's count, in one round trip; 404 when there is no such list. */
export async function listMembers(ctx: AppContext, listId: number, afterId: number, limit: number) {
  const page = await listMemberPage(ctx.db, listId, afterId, limit);
  if (page === null) throw new NotFoundError(LIST_NOT_FOUND);
  return toPage(page.items, page.total, limit, (s) => s.id);
}

/** The list's existence and its count in one query: this is what dashboards poll. */
export async function countMembers(ctx: AppContext, listId: number) {
  const count = await repo.countMembersOfList(ctx.db, listId);
  if (count === undefined) throw new NotFoundError(LIST_NOT_FOUND);
  return { subscribers_count: count };
}

/** How a subscribe request came in, for the subscribers it creates. */
export interface SubscribeOptions {
  /** Confirm the subscribers (no mail); otherwise each unconfirmed one newly subscribed gets the double opt-in mail. */
  autoConfirm: boolean;
  /**
   * What an address without a subscriber does: `create` one (a subscribe page), or `refuse` the whole request with
   * 404 naming them (an administrator adding members, as phpList: a typo must not mail a stranger).
   */
  unknown?: 'create' | 'refuse';
  origin: HistoryOrigin;
  /** The history detail of each subscriber created, e.g. `Created on subscribe page "Join us" (#3)`. */
  createdDetail?: string;
  /** The administrator subscribing them: each subscriber newly subscribed gets a history entry naming them. */
  adminId?: number;
  /** Runs in the same transaction with the ids of the subscribers this call created (their first details). */
  onCreated?: (tx: Executor, subscriberIds: number[]) => Promise<void>;
}

export interface SubscribeOutcome {
  /** The subscribers subscribed (new or already), in the order their addresses were given. */
  subscribers: SubscriberRow[];
  /** Ids of those whose subscription is new. */
  added: Set<number>;
  /** Subscription date of each. */
  dates: Map<number, Date>;
  /** Ids of the subscribers this call created. */
  created: Set<number>;
}

/**
 * Subscribes addresses to a list, in one transaction with a handful of set-wise statements whatever the number of
 * addresses. Unknown addresses become new subscribers (`html_email` by SUBSCRIBER_HTML_DEFAULT), each with a history
 * entry, or refuse the request (`unknown: 'refuse'`: nothing stored, nothing sent). Blacklisted addresses (the
 * blacklist table or the subscriber's flag) are left out: not created, not subscribed, not in the outcome.
 * Existing subscriptions stay as they are. Confirmation mails are queued in the transaction (mail/mail-queue.ts).
 */
export async function subscribeAddresses(ctx: AppContext, list: ListRow, emails: string[], options: SubscribeOptions): Promise<SubscribeOutcome> {
  const { autoConfirm } = options;
  const htmlEmail = newSubscriberHtmlEmail(ctx);
  const outcome = await ctx.db.transaction(async (tx) => {
    if (options.unknown === 'refuse') {
      const known = new Set((await repo.findSubscribersByEmails(tx, emails)).map((s) => s.email.toLowerCase()));
      const unknown = emails.filter((e) => !known.has(e.toLowerCase()));
      if (unknown.length > 0) throw new NotFoundError(unknownMessage(unknown));
    }
    const barred = await blacklistedAmong(tx, emails);
    const wanted = emails.filter((e) => !barred.has(e.toLowerCase()));
    const known = new Set((await repo.findSubscribersByEmails(tx, wanted)).map((s) => s.email.toLowerCase()));
    const created = await repo.insertSubscribers(
      tx,
      wanted
        .filter((e) => !known.has(e.toLowerCase()))
        .map((email) => ({ email, uniqueId: newSubscriberUniqueId(), confirmed: autoConfirm, htmlEmail })),
    );
    await history.insertHistoryForMany(tx, created, options.origin, 'Subscriber created', options.createdDetail ?? null);
    if (options.onCreated && created.length > 0) await options.onCreated(tx, created);
    let found = await repo.findSubscribersByEmails(tx, wanted);
    found = found.filter((s) => !s.blacklisted);
    if (autoConfirm) {
      await repo.confirmSubscribers(
        tx,
        found.map((s) => s.id),
      );
      found = await repo.findSubscribersByEmails(tx, wanted).then((rows) => rows.filter((s) => !s.blacklisted));
    }
    const byEmail = new Map(found.map((s) => [s.email.toLowerCase(), s]));
    const inOrder = wanted.map((e) => byEmail.get(e.toLowerCase())).filter((s): s is SubscriberRow => !!s);
    const ids = inOrder.map((s) => s.id);
    const added = await repo.insertSubscriptions(tx, list.id, ids);
    if (options.adminId !== undefined && added.size > 0) {
      const login = await loginNameOf(tx, options.adminId);
      await history.insertHistoryForMany(tx, [...added], options.origin, `List change by ${login}`, `Joined list "${list.name}" (#${list.id})`);
    }
    const dates = await repo.subscriptionDates(tx, list.id, ids);
    // The double opt-in mails are queued with the subscriptions they ask about, and leave after the answer.
    if (!autoConfirm)
      for (const s of inOrder) if (!s.confirmed && added.has(s.id)) await queueMail(ctx, tx, 'confirmation', confirmation(ctx, s, list));
    return { subscribers: inOrder, added, dates, created: new Set(created) };
  });
  mailQueued(ctx);
  return outcome;
}

/** Addresses named in a 404 before the rest are counted, so the message stays short for 1,000 typos. */
const NAMED_UNKNOWN = 10;

/** phpList's `Subscriber does not exists.`, naming the addresses that have no subscriber. */
function unknownMessage(unknown: string[]): string {
  const named = unknown.slice(0, NAMED_UNKNOWN).join(', ');
  const more = unknown.length > NAMED_UNKNOWN ? ` and ${unknown.length - NAMED_UNKNOWN} more` : '';
  return `Subscriber does not exists: ${named}${more}.`;
}

/**
 * `POST /lists/{id}/subscribers`: subscribes existing subscribers (see subscribeAddresses), confirmed when
 * `auto_confirm`; an address without a subscriber is a 404 and nothing is stored (phpList), unless
 * `create_unknown` (the console's "add members") creates it. Answers the
 * subscriptions in the order the addresses were given.
 */
export async function addMembers(
  ctx: AppContext,
  listId: number,
  callerId: number,
  body: AddMembersBody,
  origin: HistoryOrigin,
): Promise<Subscription[]> {
  const list = await requireOwnedList(ctx, listId, callerId);
  const { subscribers, dates } = await subscribeAddresses(ctx, list, uniqueEmails(body.emails), {
    autoConfirm: body.auto_confirm ?? false,
    unknown: body.create_unknown ? 'create' : 'refuse',
    origin,
    adminId: callerId,
  });
  const subscriberList = toSubscriberList(list);
  return subscribers.map((s) => ({
    subscriber: toSubscriberOnly(s),
    subscriber_list: subscriberList,
    subscription_date: toAtom(dates.get(s.id) ?? new Date()),
  }));
}

/** Unsubscribes the addresses; each subscriber that was a member gets a history entry naming the administrator. */
export async function removeMembers(ctx: AppContext, listId: number, callerId: number, emails: string[], origin: HistoryOrigin): Promise<void> {
  const list = await requireOwnedList(ctx, listId, callerId);
  const login = await loginNameOf(ctx.db, callerId);
  await ctx.db.transaction(async (tx) => {
    const removed = await repo.removeMembers(tx, listId, uniqueEmails(emails));
    await history.insertHistoryForMany(tx, removed, origin, `List change by ${login}`, `Left list "${list.name}" (#${list.id})`);
  });
}

/** Trimmed, first spelling of each address kept (addresses compare case-insensitively). */
export function uniqueEmails(emails: string[]): string[] {
  const seen = new Map<string, string>();
  for (const raw of emails) {
    const email = raw.trim();
    if (!seen.has(email.toLowerCase())) seen.set(email.toLowerCase(), email);
  }
  return [...seen.values()];
}

/** The double opt-in mail of an administrator's subscribe request. */
function confirmation(ctx: AppContext, subscriber: SubscriberRow, list: ListRow): MailToQueue {
  return {
    to: subscriber.email,
    subject: 'Please confirm your subscription',
    text:
      `You have been subscribed to the list "${list.name}".\n\n` +
      `Please confirm your subscription by opening this link:\n${confirmationLink(ctx, subscriber.uniqueId)}\n\n` +
      'If you did not ask for this, ignore this message and you will not receive mail from us.\n',
  };
}
