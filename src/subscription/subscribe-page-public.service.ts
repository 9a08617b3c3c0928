import type { AppContext } from '../context.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import * as history from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { subscribeAddresses } from './list-member.service.js';
import * as repo from './subscribe-page.repository.js';
import type { PublicSubscribeBody, PublicSubscribePage } from './subscribe-page.schemas.js';
import { PAGE_NOT_FOUND } from './subscribe-page.service.js';

/*
 * The public side of a subscribe page: what a visitor's form reads and posts, without a session. Everything is
 * bounded by the page's own settings: it offers the public lists of its `lists` setting and the attributes of its
 * `attributes` setting (comma-separated ids), and nothing else.
 */

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

  await subscribeAddresses(ctx, list, [body.email.trim()], {
    autoConfirm: false,
    origin,
    createdDetail: `Created on subscribe page "${live.page.title}" (#${live.page.id})`,
    onCreated: async (tx, [subscriberId]) => {
      if (subscriberId !== undefined) await repo.upsertAttributeValues(tx, subscriberId, values);
    },
  });
}

/** Unsubscribes an address from every list of the page's `lists` setting; unknown addresses change nothing. */
export async function unsubscribe(ctx: AppContext, pageId: number, email: string, origin: HistoryOrigin): Promise<void> {
  const live = await requireLivePage(ctx, pageId);
  const listIds = idsOf(live.data.get('lists'));
  await ctx.db.transaction(async (tx) => {
    const subscriberId = await repo.unsubscribeEmail(tx, email.trim(), listIds);
    if (subscriberId !== undefined) {
      const detail = `Unsubscribed on subscribe page "${live.page.title}" (#${live.page.id})`;
      await history.insertHistory(tx, subscriberId, origin, 'Unsubscribed', detail);
    }
  });
}
