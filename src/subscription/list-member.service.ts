import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { toPage } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import { blacklistedAmong } from './blacklist.repository.js';
import * as repo from './list-member.repository.js';
import type { AddMembersBody, Subscription } from './list-member.schemas.js';
import { toSubscriberList, type ListRow } from './list.repository.js';
import { requireList, requireOwnedList } from './list.service.js';
import { listsOfSubscribers, toSubscriber, toSubscriberOnly, type SubscriberRow } from './subscriber.repository.js';

export async function listMembers(ctx: AppContext, listId: number, afterId: number, limit: number) {
  await requireList(ctx, listId);
  const rows = await repo.memberPage(ctx.db, listId, afterId, limit);
  const [listsOf, total] = await Promise.all([
    listsOfSubscribers(ctx.db, rows.map((r) => r.id)),
    repo.countMembers(ctx.db, listId),
  ]);
  const items = rows.map((row) => toSubscriber(row, listsOf.get(row.id) ?? []));
  return toPage(items, total, limit, (s) => s.id);
}

export async function countMembers(ctx: AppContext, listId: number) {
  await requireList(ctx, listId);
  return { subscribers_count: await repo.countMembers(ctx.db, listId) };
}

/**
 * Subscribes addresses to a list. Unknown addresses become new subscribers (confirmed when `auto_confirm`).
 * Blacklisted addresses (the blacklist table or the subscriber's flag) are left out: not created, not subscribed,
 * not in the answer. Existing subscriptions are answered unchanged. Without `auto_confirm`, every unconfirmed
 * subscriber newly added gets a confirmation mail, sent after the subscriptions are stored.
 * Answers the subscriptions in the order the addresses were given.
 */
export async function addMembers(
  ctx: AppContext,
  listId: number,
  callerId: number,
  body: AddMembersBody,
): Promise<Subscription[]> {
  const list = await requireOwnedList(ctx, listId, callerId);
  const autoConfirm = body.auto_confirm ?? false;
  const emails = uniqueEmails(body.emails);

  const { subscribersInOrder, added, dates } = await ctx.db.transaction(async (tx) => {
    const barred = await blacklistedAmong(tx, emails);
    const wanted = emails.filter((e) => !barred.has(e.toLowerCase()));
    const known = new Set((await repo.findSubscribersByEmails(tx, wanted)).map((s) => s.email.toLowerCase()));
    await repo.insertSubscribers(
      tx,
      wanted
        .filter((e) => !known.has(e.toLowerCase()))
        .map((email) => ({ email, uniqueId: randomBytes(16).toString('hex'), confirmed: autoConfirm })),
    );
    let found = await repo.findSubscribersByEmails(tx, wanted);
    found = found.filter((s) => !s.blacklisted);
    if (autoConfirm) {
      await repo.confirmSubscribers(tx, found.map((s) => s.id));
      found = await repo.findSubscribersByEmails(tx, wanted).then((rows) => rows.filter((s) => !s.blacklisted));
    }
    const byEmail = new Map(found.map((s) => [s.email.toLowerCase(), s]));
    const inOrder = wanted.map((e) => byEmail.get(e.toLowerCase())).filter((s): s is SubscriberRow => !!s);
    const ids = inOrder.map((s) => s.id);
    const newly = await repo.insertSubscriptions(tx, listId, ids);
    return { subscribersInOrder: inOrder, added: newly, dates: await repo.subscriptionDates(tx, listId, ids) };
  });

  if (!autoConfirm) {
    const toConfirm = subscribersInOrder.filter((s) => !s.confirmed && added.has(s.id));
    await Promise.all(toConfirm.map((s) => sendConfirmation(ctx, s, list)));
  }

  const subscriberList = toSubscriberList(list);
  return subscribersInOrder.map((s) => ({
    subscriber: toSubscriberOnly(s),
    subscriber_list: subscriberList,
    subscription_date: toAtom(dates.get(s.id) ?? new Date()),
  }));
}

export async function removeMembers(ctx: AppContext, listId: number, callerId: number, emails: string[]): Promise<void> {
  await requireOwnedList(ctx, listId, callerId);
  await repo.removeMembers(ctx.db, listId, uniqueEmails(emails));
}

/** Trimmed, first spelling of each address kept (addresses compare case-insensitively). */
function uniqueEmails(emails: string[]): string[] {
  const seen = new Map<string, string>();
  for (const raw of emails) {
    const email = raw.trim();
    if (!seen.has(email.toLowerCase())) seen.set(email.toLowerCase(), email);
  }
  return [...seen.values()];
}

/** The double opt-in mail. A failed send is logged, not fatal: the subscription is stored either way. */
async function sendConfirmation(ctx: AppContext, subscriber: SubscriberRow, list: ListRow): Promise<void> {
  const link = `${ctx.config.publicUrl}/api/v2/subscribers/confirm?uniqueId=${encodeURIComponent(subscriber.uniqueId)}`;
  try {
    await ctx.mailer.send({
      to: subscriber.email,
      subject: 'Please confirm your subscription',
      text:
        `You have been subscribed to the list "${list.name}".\n\n` +
        `Please confirm your subscription by opening this link:\n${link}\n\n` +
        'If you did not ask for this, ignore this message and you will not receive mail from us.\n',
    });
  } catch (err) {
    ctx.log.warn({ err, subscriberId: subscriber.id, listId: list.id }, 'confirmation mail not sent');
  }
}
