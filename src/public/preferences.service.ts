import type { AppContext } from '../context.js';
import { takeStrict } from '../shared/rate-limit.js';
import {
  loadDefinitionsWithOptions,
  checkAttributeValue,
  insertHistory,
  joinLists,
  leave,
  leaveInTransaction,
  findSubscriberByUniqueId,
  updateSubscriber,
  type DefinitionWithOptions,
  type HistoryOrigin,
  type SubscriberRow,
} from '../subscription/index.js';
import { decodeAnyPreferencesToken } from '../sending/index.js';
import * as repo from './preferences.repository.js';

/*
 * The preference centre: what a subscriber holding their signed link (sending/preferences-link.ts) may see and change about
 * themselves. The link is the only credential; every change is a POST and is written to the subscriber's history.
 * The address change is address-change.service.ts.
 */

export const FORWARDED = 'forwarded';
/** The public pages' window for changes by one client. */
const MAIL_WINDOW = 600;

export type Resolved = { readonly subscriber: SubscriberRow } | 'expired' | 'forwarded' | null;

/** The subscriber a preferences token names; `expired`, `forwarded` (a forwarded copy's link) or null (forged, gone). */
export async function resolve(ctx: AppContext, token: string): Promise<Resolved> {
  const link = decodeAnyPreferencesToken(ctx.secrets.linkToken, token, ctx.config.preferences.linkDays, ctx.config.preferencesPageLinkDays);
  if (link === null || link === 'expired') return link;
  if (link.uniqueId === FORWARDED) return FORWARDED;
  const subscriber = await findSubscriberByUniqueId(ctx.db, link.uniqueId);
  return subscriber ? { subscriber } : null;
}

/** One client's changes on the public subscriber pages: PREFERENCES_CLIENT_LIMIT in any 10 minutes. */
export async function takeChange(ctx: AppContext, clientIp: string | null) {
  return takeStrict(ctx.db, `public-change:${clientIp ?? 'unknown'}`, MAIL_WINDOW, ctx.config.preferences.clientLimit);
}

export interface EditableAttribute {
  readonly definition: DefinitionWithOptions;
  readonly value: string | null;
}

export interface PreferenceView {
  readonly email: string;
  readonly htmlEmail: boolean;
  readonly lists: repo.PreferenceList[];
  readonly attributes: EditableAttribute[];
}

async function editableDefinitions(ctx: AppContext): Promise<DefinitionWithOptions[]> {
  const ids = await repo.editableDefinitionIds(ctx.db);
  if (ids.length === 0) return [];
  const all = new Map((await loadDefinitionsWithOptions(ctx.db)).map((d) => [d.id, d]));
  return ids.map((id) => all.get(id)).filter((d): d is DefinitionWithOptions => d !== undefined);
}

export async function view(ctx: AppContext, subscriber: SubscriberRow): Promise<PreferenceView> {
  const [lists, definitions] = await Promise.all([repo.listsForSubscriber(ctx.db, subscriber.id), editableDefinitions(ctx)]);
  const values = await repo.attributeValues(
    ctx.db,
    subscriber.id,
    definitions.map((d) => d.id),
  );
  return {
    email: subscriber.email,
    htmlEmail: subscriber.htmlEmail,
    lists,
    attributes: definitions.map((definition) => ({ definition, value: values.get(definition.id) ?? null })),
  };
}

const names = (lists: readonly repo.PreferenceList[], ids: readonly number[]) =>
  ids.map((id) => `"${lists.find((l) => l.id === id)?.name ?? id}" (#${id})`).join(', ');

/**
 * Makes the subscriber's lists what the form says: joins the ticked public lists, leaves the unticked ones they are
 * on. A non-public list can be left, never joined; ids of lists not offered are ignored.
 */
export async function saveLists(ctx: AppContext, subscriber: SubscriberRow, wanted: ReadonlySet<number>, origin: HistoryOrigin) {
  const lists = await repo.listsForSubscriber(ctx.db, subscriber.id);
  const join = lists.filter((l) => !l.member && l.isPublic && wanted.has(l.id)).map((l) => l.id);
  const leave = lists.filter((l) => l.member && !wanted.has(l.id)).map((l) => l.id);
  await ctx.db.transaction(async (tx) => {
    const joined = await joinLists(tx, subscriber.id, join);
    if (joined.length > 0) await insertHistory(tx, subscriber.id, origin, 'Subscribed', `Joined ${names(lists, joined)} in the preference centre`);
    await leaveInTransaction(tx, subscriber.id, {
      scope: { lists: leave },
      origin,
      describe: (left, skipped) => `Left ${left ?? 'no list'} in the preference centre${skippedNote(skipped)}`,
      skipReason: SKIP_REASON,
    });
  });
}

const SKIP_REASON = 'Skipped: the subscriber left its lists in the preference centre.';
const skippedNote = (skipped: number) => (skipped > 0 ? `; ${skipped} queued campaign mail skipped` : '');

export type FieldErrors = Map<number, 'required' | string>;

/**
 * Checks and stores the editable attributes a form sends (`values`: definition id → the values posted; a checkbox
 * left unticked sends nothing). Answers the errors by definition; nothing is stored unless all are fine.
 */
export async function saveAttributes(
  ctx: AppContext,
  subscriber: SubscriberRow,
  values: ReadonlyMap<number, readonly string[]>,
  origin: HistoryOrigin,
): Promise<FieldErrors> {
  const definitions = await editableDefinitions(ctx);
  const errors: FieldErrors = new Map();
  const stored = new Map<number, string | null>();
  for (const definition of definitions) {
    const type = (definition.type ?? 'textline').toLowerCase();
    const posted = values.get(definition.id) ?? [];
    let raw: unknown;
    if (type === 'checkbox') raw = posted.length > 0 ? 'on' : 'off';
    else if (type === 'checkboxgroup') raw = posted.filter((v) => v.trim() !== '');
    else raw = (posted[0] ?? '').trim();
    const empty = raw === '' || (Array.isArray(raw) && raw.length === 0);
    if (empty && definition.required) {
      errors.set(definition.id, 'required');
      continue;
    }
    if (empty) {
      stored.set(definition.id, null);
      continue;
    }
    const checked = checkAttributeValue(definition, raw);
    if (!checked.ok) errors.set(definition.id, checked.reason);
    else stored.set(definition.id, checked.stored);
  }
  if (errors.size > 0) return errors;
  const before = await repo.attributeValues(ctx.db, subscriber.id, [...stored.keys()]);
  const changed = [...stored].filter(([id, value]) => (before.get(id) ?? null) !== value);
  if (changed.length === 0) return errors;
  await ctx.db.transaction(async (tx) => {
    for (const [id, value] of changed) await repo.upsertAttributeValue(tx, subscriber.id, id, value);
    const which = changed.map(([id]) => `"${definitions.find((d) => d.id === id)!.name}"`).join(', ');
    await insertHistory(tx, subscriber.id, origin, 'Updated', `Changed ${which} in the preference centre`);
  });
  return errors;
}

export async function saveFormat(ctx: AppContext, subscriber: SubscriberRow, htmlEmail: boolean, origin: HistoryOrigin) {
  if (subscriber.htmlEmail === htmlEmail) return;
  await ctx.db.transaction(async (tx) => {
    await updateSubscriber(tx, subscriber.id, { htmlEmail });
    const detail = `Chose ${htmlEmail ? 'HTML' : 'plain-text'} mail in the preference centre`;
    await insertHistory(tx, subscriber.id, origin, 'Updated', detail);
  });
}

/** Off every list (not the blacklist: the subscriber may come back here and join again). */
export async function leaveAll(ctx: AppContext, subscriber: SubscriberRow, origin: HistoryOrigin) {
  await leave(ctx.db, subscriber.id, {
    scope: { everyList: true },
    origin,
    describe: (left, skipped) => `Left all lists (${left ?? 'none'}) in the preference centre${skippedNote(skipped)}`,
    skipReason: SKIP_REASON,
  });
}
