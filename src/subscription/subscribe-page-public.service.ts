import type { AppContext } from '../context.js';
import { pickLanguage } from '../shared/i18n.js';
import { decodeUnsubscribeToken } from './unsubscribe-token.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.js';
import { loadDefinitionsWithOptions } from './attribute.repository.js';
import { MAX_VALUE_LENGTH } from './attribute.schemas.js';
import { checkSignUpValues, type ValueProblem } from './signup.check.js';
import { signUp } from './signup.service.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { findSubscriberByUniqueId } from './subscriber.repository.js';
import { leave } from './leave.service.js';
import * as repo from './subscribe-page.repository.js';
import type { PublicSubscribeBody, PublicSubscribePage } from './subscribe-page.schemas.js';
import { PAGE_NOT_FOUND } from './subscribe-page.service.js';

/*
 * The public side of a subscribe page: what a visitor's form reads and posts, without a session. Everything is
 * bounded by the page's own settings: it offers the public lists of its `lists` setting and the attributes of its
 * `attributes` setting (comma-separated ids), and nothing else.
 *
 * A sign-up here is the one sign-up of signup.service.ts (the hosted form's too). Leaving needs the subscriber's
 * signed unsubscribe token.
 */

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

/** What the page offers (lists, attributes) and its language and opt-in settings, as a sign-up needs them. */
export async function signUpPage(ctx: AppContext, live: LivePage, acceptLanguage: string | undefined) {
  const listIds = idsOf(live.data.get('lists'));
  const attributeIds = idsOf(live.data.get('attributes'));
  const [lists, definitions] = await Promise.all([repo.publicListsAmong(ctx.db, listIds), loadDefinitionsWithOptions(ctx.db)]);
  return {
    lists: inOrder(listIds, lists),
    attributes: inOrder(attributeIds, definitions),
    lang: pickLanguage(live.data.get('language'), acceptLanguage),
    doubleOptIn: !NO.has((live.data.get('double_optin') ?? '').trim().toLowerCase()),
  };
}

const NO = new Set(['0', 'no', 'false', 'off']);

/** How the API words a value the sign-up refuses (the form says the same in the page's language). */
const PROBLEMS: Record<ValueProblem, string> = {
  required: 'This value should not be blank.',
  tooLong: `This value is too long (at most ${MAX_VALUE_LENGTH} characters).`,
  date: 'This value is not a date (expected YYYY-MM-DD).',
  choice: 'This value is not one of the options.',
  oneLine: 'This value must be a single line.',
};

/**
 * Signs an address up for one of the page's lists: the one sign-up (signup.service.ts) the hosted form uses, with
 * the same checks of the attribute values (422 with `errors["attributes.<name>"]` for what the form refuses). The
 * answer is the same 204 whether the address was new, known or blacklisted.
 */
export async function subscribe(
  ctx: AppContext,
  pageId: number,
  body: PublicSubscribeBody,
  origin: HistoryOrigin,
  acceptLanguage?: string,
): Promise<void> {
  const live = await requireLivePage(ctx, pageId);
  const page = await signUpPage(ctx, live, acceptLanguage);
  const list = page.lists.find((l) => l.id === body.list_id);
  const errors: Record<string, string[]> = {};
  if (!list) errors.list_id = ['This list is not offered on this page.'];

  const byName = new Map(page.attributes.map((d) => [d.name.toLowerCase(), d]));
  const given = new Map<number, string[]>();
  const nameOf = new Map<number, string>();
  for (const [name, value] of Object.entries(body.attributes ?? {})) {
    const definition = byName.get(name.trim().toLowerCase());
    if (!definition) {
      errors[`attributes.${name}`] = ['This attribute is not offered on this page.'];
      continue;
    }
    nameOf.set(definition.id, name);
    given.set(definition.id, (definition.type ?? '').toLowerCase() === 'checkboxgroup' ? value.split(',') : [value]);
  }
  const checked = checkSignUpValues(page.attributes, given);
  for (const [id, problem] of checked.problems) {
    errors[`attributes.${nameOf.get(id) ?? page.attributes.find((d) => d.id === id)!.name}`] = [PROBLEMS[problem]];
  }
  if (Object.keys(errors).length > 0 || !list) throw new ValidationError(errors);

  await signUp(
    ctx,
    {
      page: { id: live.page.id, title: live.page.title },
      lang: page.lang,
      email: body.email.trim(),
      lists: [list],
      values: checked.values,
      doubleOptIn: page.doubleOptIn,
    },
    origin,
  );
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
