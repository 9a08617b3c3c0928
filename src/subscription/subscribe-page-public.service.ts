import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { takeStrict } from '../shared/rate-limit.js';
import { decodeUnsubscribeToken } from './unsubscribe-token.js';
import { ForbiddenError, NotFoundError, TooManyRequestsError, ValidationError } from '../shared/errors.js';
import { blacklistedAmong } from './blacklist.repository.js';
import { decodeJoinToken } from './list-join-token.js';
import { findSubscribersByEmails, insertSubscriptions } from './list-member.repository.js';
import { findList } from './list.repository.js';
import * as history from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { subscribeAddresses } from './list-member.service.js';
import { findSubscriberByUniqueId } from './subscriber.repository.js';
import { leave } from './leave.service.js';
import { sendJoinRequest } from './subscribe-page-public.mail.js';
import * as repo from './subscribe-page.repository.js';
import type { PublicSubscribeBody, PublicSubscribePage } from './subscribe-page.schemas.js';
import { PAGE_NOT_FOUND } from './subscribe-page.service.js';

/*
 * The public side of a subscribe page: what a visitor's form reads and posts, without a session. Everything is
 * bounded by the page's own settings: it offers the public lists of its `lists` setting and the attributes of its
 * `attributes` setting (comma-separated ids), and nothing else.
 *
 * Anyone can post any address here, so (issue 17): nothing is subscribed without the address owner's consent (a
 * new or unconfirmed address gets the double opt-in mail, a confirmed one a link that adds the list), leaving needs
 * the subscriber's signed unsubscribe token, and sign-ups are limited per client and per address (at most one mail
 * to an address in 10 minutes), in the database so that every process shares the counts. Every sign-up answers the
 * same, so the form tells nobody whether an address is known, confirmed or blacklisted.
 */

/** One sign-up (so one mail) per e-mail address in any MAIL_WINDOW seconds; SUBSCRIBE_PAGE_CLIENT_LIMIT per client. */
const MAIL_WINDOW = 600;
export const TOO_MANY_CLIENT = 'Too many sign-ups from your address. Try again later.';
export const TOO_MANY_ADDRESS = 'This e-mail address was signed up a moment ago. Try again later.';
export const UNSUBSCRIBE_DENIED = 'A valid unsubscribe token for this address is required (the link in every mail we send).';

interface LivePage {
  page: repo.PageRow;
  data: Map<string, string | null>;
}

/** The page if it exists and is active; an inactive page is as unknown as a missing one. */
export async function requireLivePage(ctx: AppContext, id: number): Promise<LivePage> {
  const found = await repo.findPage(ctx.db, id);
  if (!found || !found.page.active) throw new NotFoundError(PAGE_NOT_FOUND);
  const rows = await repo.pageData(ctx.db, id);
  return { page: found.page, data: new Map(rows.map((r) => [r.name, r.data])) };
}

/** `"3, 1,x,3"` → `[3, 1]`: ids in the order given, without duplicates or junk. */
export function idsOf(setting: string | null | undefined): number[] {
  const ids = (setting ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => /^\d{1,10}$/.test(part))
    .map(Number)
    .filter((n) => n >= 1 && n <= 2_147_483_647);
  return [...new Set(ids)];
}

/** Rows in the order of `ids` (the page's order), missing ones left out. */
function inOrder<T extends { id: number }>(ids: number[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
}

async function offeredLists(ctx: AppContext, live: LivePage) {
  const ids = idsOf(live.data.get('lists'));
  return inOrder(ids, await repo.publicListsAmong(ctx.db, ids));
}

async function offeredAttributes(ctx: AppContext, live: LivePage) {
  const ids = idsOf(live.data.get('attributes'));
  return inOrder(ids, await repo.definitionsAmong(ctx.db, ids));
}

export async function getPublicPage(ctx: AppContext, id: number): Promise<PublicSubscribePage> {
  const live = await requireLivePage(ctx, id);
  const [lists, attributes] = await Promise.all([offeredLists(ctx, live), offeredAttributes(ctx, live)]);
  return {
    id: live.page.id,
    title: live.page.title,
    data: Object.fromEntries(live.data),
    lists: lists.map((l) => ({ id: l.id, name: l.name, description: l.description })),
    attributes: attributes.map((d) => ({ id: d.id, name: d.name, type: d.type, required: d.required })),
  };
}

/**
 * Subscribes one address to one of the page's lists, through the same path as `POST /lists/{id}/subscribers`
 * without auto-confirm: a new or unconfirmed subscriber gets the double opt-in mail. A blacklisted address is
 * silently left alone, and so is an existing subscriber's data: the answer is the same 204 either way, so the form
 * tells nobody whether an address is known or blacklisted. Attribute values are stored for new subscribers only.
 */
export async function subscribe(ctx: AppContext, pageId: number, body: PublicSubscribeBody, origin: HistoryOrigin): Promise<void> {
  const live = await requireLivePage(ctx, pageId);
  const [lists, definitions] = await Promise.all([offeredLists(ctx, live), offeredAttributes(ctx, live)]);
  const list = lists.find((l) => l.id === body.list_id);
  const errors: Record<string, string[]> = {};
  if (!list) errors.list_id = ['This list is not offered on this page.'];

  const byName = new Map(definitions.map((d) => [d.name.toLowerCase(), d]));
  const values: { definitionId: number; value: string }[] = [];
  const given = new Set<number>();
  for (const [name, value] of Object.entries(body.attributes ?? {})) {
    const definition = byName.get(name.trim().toLowerCase());
    if (!definition) {
      errors[`attributes.${name}`] = ['This attribute is not offered on this page.'];
      continue;
    }
    // TODO: type-specific checks (option ids, dates) once the attribute area exposes its value validator.
    values.push({ definitionId: definition.id, value });
    if (value.trim() !== '') given.add(definition.id);
  }
  for (const definition of definitions) {
    if (definition.required && !given.has(definition.id)) {
      errors[`attributes.${definition.name}`] = ['This value should not be blank.'];
    }
  }
  if (Object.keys(errors).length > 0 || !list) throw new ValidationError(errors);

  const email = body.email.trim();
  await takeSignUp(ctx, email, origin.ip);
  const [known] = await findSubscribersByEmails(ctx.db, [email]);
  if (known?.confirmed && !known.blacklisted) {
    // Confirmed already: asked first, by mail, whether to join this list too (consent for every list).
    if ((await blacklistedAmong(ctx.db, [email])).size > 0 || (await repo.isMember(ctx.db, list.id, known.id))) return;
    await sendJoinRequest(ctx, known, list);
    return;
  }
  await subscribeAddresses(ctx, list, [email], {
    autoConfirm: false,
    origin,
    createdDetail: `Created on subscribe page "${live.page.title}" (#${live.page.id})`,
    onCreated: async (tx, [subscriberId]) => {
      if (subscriberId !== undefined) await repo.upsertAttributeValues(tx, subscriberId, values);
    },
  });
}

/**
 * Both limits of a sign-up, taken before anything is looked up (so a refusal says nothing about the address): the
 * client's first, so that a client over its limit cannot use up an address's.
 */
export async function takeSignUp(ctx: AppContext, email: string, clientIp: string | null): Promise<void> {
  const client = await takeStrict(ctx.db, `page-client:${clientIp ?? 'unknown'}`, MAIL_WINDOW, ctx.config.subscribePageClientLimit);
  if (!client.granted) throw new TooManyRequestsError(TOO_MANY_CLIENT, client.retryAfter);
  // The address itself is not stored in the rate table: a digest names its window.
  const digest = createHash('sha256').update(email.toLowerCase()).digest('base64url');
  const address = await takeStrict(ctx.db, `page-address:${digest}`, MAIL_WINDOW, 1);
  if (!address.granted) throw new TooManyRequestsError(TOO_MANY_ADDRESS, address.retryAfter);
}

/**
 * Unsubscribes an address from every list of the page's `lists` setting, given the subscriber's unsubscribe token
 * (subscription/unsubscribe-token.ts) for that very address: 403 otherwise. A subscriber on none of the lists changes
 * nothing.
 */
export async function unsubscribe(ctx: AppContext, pageId: number, email: string, token: string, origin: HistoryOrigin): Promise<void> {
  const live = await requireLivePage(ctx, pageId);
  const target = decodeUnsubscribeToken(ctx.secrets.linkToken, token);
  const owner = target ? await findSubscriberByUniqueId(ctx.db, target.uniqueId) : undefined;
  if (!owner || owner.email.toLowerCase() !== email.trim().toLowerCase()) throw new ForbiddenError(UNSUBSCRIBE_DENIED);
  const where = `on subscribe page "${live.page.title}" (#${live.page.id})`;
  await leave(ctx.db, owner.id, {
    scope: { lists: idsOf(live.data.get('lists')) },
    origin,
    describe: (_left, skipped) => `Unsubscribed ${where}` + (skipped > 0 ? `; ${skipped} queued campaign mail skipped` : ''),
    skipReason: `Skipped: unsubscribed ${where}`,
  });
}

export type JoinOutcome = 'missing' | 'unknown' | 'joined';

/** The link of a list-join mail: adds the subscriber to the list it names (once), with a history entry. */
export async function joinByToken(ctx: AppContext, token: string | undefined, origin: HistoryOrigin): Promise<JoinOutcome> {
  if (!token) return 'missing';
  const target = decodeJoinToken(ctx.secrets.linkToken, token);
  if (!target) return 'unknown';
  const [subscriber, list] = await Promise.all([findSubscriberByUniqueId(ctx.db, target.uniqueId), findList(ctx.db, target.listId)]);
  if (!subscriber || subscriber.blacklisted || !list) return 'unknown';
  if ((await blacklistedAmong(ctx.db, [subscriber.email])).size > 0) return 'unknown';
  await ctx.db.transaction(async (tx) => {
    const added = await insertSubscriptions(tx, list.id, [subscriber.id]);
    if (added.has(subscriber.id)) {
      await history.insertHistory(tx, subscriber.id, origin, 'Subscribed', `Joined list "${list.name}" by the link of the confirmation mail`);
    }
  });
  return 'joined';
}
