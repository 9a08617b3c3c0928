import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import {
  loadDefinitionsWithOptions,
  blacklistedAmong,
  findSubscribersByEmails,
  insertSubscribers,
  insertSubscriptions,
  isMember,
  publicListsAmong,
  upsertAttributeValues,
  idsOf,
  requireLivePage,
  takeSignUp,
  insertHistory,
  newSubscriberHtmlEmail,
  type DefinitionWithOptions,
  type ListRow,
  type PageRow,
  type HistoryOrigin,
  type SubscriberRow,
  type PageLook,
} from '../subscription/index.js';
import { pickLanguage, type Lang } from '../shared/i18n.js';
import type { CheckedSignup } from './signup.form.js';
import { sendJoinRequests, sendSignupConfirmation } from './signup.mail.js';

/*
 * The hosted sign-up form of a subscribe page (`/subscribe/{id}`): what it shows and what a sign-up does. The rules
 * are the API's (subscribe-page-public.service.ts, issue 17) with the form's extras: several lists at once, one mail
 * for all of them, and a second sign-up of an unconfirmed address re-sending its confirmation. Whatever the
 * address's state, the visitor sees the same thank-you page; only the address's owner learns anything, by mail.
 */

export interface SignupForm {
  readonly id: number;
  readonly title: string;
  readonly data: ReadonlyMap<string, string | null>;
  readonly lists: readonly ListRow[];
  readonly attributes: readonly DefinitionWithOptions[];
  readonly lang: Lang;
  /** Double opt-in unless the page's `double_optin` setting is `0`/`no`/`false`/`off`. */
  readonly doubleOptIn: boolean;
  /** The page's `emaildoubleentry` setting (phpList): the address is typed twice. */
  readonly emailTwice: boolean;
  readonly look: PageLook;
}

const NO = new Set(['0', 'no', 'false', 'off']);
const YES = new Set(['1', 'yes', 'true', 'on']);
const flag = (value: string | null | undefined) => value?.trim().toLowerCase() ?? '';

/** An active page as its form shows it; an unknown or inactive page is a NotFoundError. */
export async function loadSignupForm(ctx: AppContext, pageId: number, acceptLanguage: string | undefined): Promise<SignupForm> {
  const live = await requireLivePage(ctx, pageId);
  return buildSignupForm(ctx, live.page, live.data, acceptLanguage);
}

/** A page (active or not: the embed snippet of a page not yet live) as its form shows it. */
export async function buildSignupForm(
  ctx: AppContext,
  page: PageRow,
  data: ReadonlyMap<string, string | null>,
  acceptLanguage: string | undefined,
): Promise<SignupForm> {
  const listIds = idsOf(data.get('lists'));
  const attributeIds = idsOf(data.get('attributes'));
  const [lists, definitions] = await Promise.all([publicListsAmong(ctx.db, listIds), loadDefinitionsWithOptions(ctx.db)]);
  const listById = new Map(lists.map((l) => [l.id, l]));
  const definitionById = new Map(definitions.map((d) => [d.id, d]));
  return {
    id: page.id,
    title: page.title,
    data,
    lists: listIds.map((id) => listById.get(id)).filter((l): l is ListRow => l !== undefined),
    attributes: attributeIds.map((id) => definitionById.get(id)).filter((d): d is DefinitionWithOptions => d !== undefined),
    lang: pickLanguage(data.get('language'), acceptLanguage),
    doubleOptIn: !NO.has(flag(data.get('double_optin'))),
    emailTwice: YES.has(flag(data.get('emaildoubleentry'))),
    look: { logoUrl: data.get('logo_url'), accentColor: data.get('accent_color'), customCss: data.get('custom_css') },
  };
}

type Found =
  { kind: 'barred' } | { kind: 'confirmed'; subscriber: SubscriberRow } | { kind: 'pending'; subscriber: SubscriberRow; createdConfirmed: boolean };

/**
 * One sign-up from the form (already checked). The limits come first, before anything is looked up, so a refusal
 * (TooManyRequestsError) says nothing about the address; they are the API's own counters, so the form and the API
 * share them: one sign-up per address in 10 minutes (so at most one mail), SUBSCRIBE_PAGE_CLIENT_LIMIT per client.
 * Then:
 * - a blacklisted address (entry or flag): nothing;
 * - a confirmed subscriber: nothing is changed; when some chosen lists are new to them, one mail with a join link
 *   per list (consent for every list), otherwise no mail at all;
 * - a new address: created (unconfirmed, or confirmed on a single opt-in page) with its attribute values and a
 *   history entry, subscribed; an unconfirmed one: subscribed to the chosen lists, its data left alone. Either gets
 *   one confirmation mail naming the lists, except a new subscriber of a single opt-in page, who gets none.
 */
export async function signUp(ctx: AppContext, form: SignupForm, signup: CheckedSignup, origin: HistoryOrigin): Promise<void> {
  await takeSignUp(ctx, signup.email, origin.ip);
  const chosen = form.lists.filter((l) => signup.listIds.includes(l.id));
  const where = `subscribe page "${form.title}" (#${form.id})`;
  const found = await ctx.db.transaction(async (tx): Promise<Found> => {
    if ((await blacklistedAmong(tx, [signup.email])).size > 0) return { kind: 'barred' };
    let [subscriber] = await findSubscribersByEmails(tx, [signup.email]);
    if (subscriber?.blacklisted) return { kind: 'barred' };
    if (subscriber?.confirmed) return { kind: 'confirmed', subscriber };
    let createdConfirmed = false;
    if (!subscriber) {
      const uniqueId = randomBytes(16).toString('hex');
      const [id] = await insertSubscribers(tx, [
        { email: signup.email, uniqueId, confirmed: !form.doubleOptIn, htmlEmail: newSubscriberHtmlEmail(ctx) },
      ]);
      // Another writer stored the address in the meantime: it is theirs, this sign-up leaves it alone.
      if (id === undefined) return { kind: 'barred' };
      await insertHistory(tx, id, origin, 'Subscriber created', `Created on ${where}`);
      await upsertAttributeValues(tx, id, [...signup.values]);
      [subscriber] = await findSubscribersByEmails(tx, [signup.email]);
      createdConfirmed = !form.doubleOptIn;
    }
    const added: string[] = [];
    for (const list of chosen) if ((await insertSubscriptions(tx, list.id, [subscriber!.id])).size > 0) added.push(list.name);
    if (added.length > 0) {
      await insertHistory(tx, subscriber!.id, origin, 'Subscribed', `Subscribed to ${added.map((n) => `"${n}"`).join(', ')} on ${where}`);
    }
    return { kind: 'pending', subscriber: subscriber!, createdConfirmed };
  });

  if (found.kind === 'confirmed') {
    const memberships = await Promise.all(chosen.map((l) => isMember(ctx.db, l.id, found.subscriber.id)));
    const missing = chosen.filter((_, i) => !memberships[i]);
    if (missing.length > 0) await sendJoinRequests(ctx, form.lang, found.subscriber, missing);
  } else if (found.kind === 'pending' && !found.createdConfirmed) {
    await sendSignupConfirmation(ctx, form, found.subscriber, chosen);
  }
}
