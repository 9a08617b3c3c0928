import type { AppContext } from '../context.js';
import * as blacklistRepo from './blacklist.repository.js';
import { loginNameOf } from '../identity/index.js';
import { ConflictError, NotFoundError, ValidationError, driverCode } from '../shared/errors.js';
import { cursorOf, toPage } from '../shared/pagination.js';
import { queueConfirmationRequests } from './subscriber-confirmation.js';
import { mailQueued } from '../mail/index.js';
import * as history from './subscriber-history.repository.js';
import type { HistoryOrigin, HistoryQuery } from './subscriber-history.schemas.js';
import * as repo from './subscriber.repository.js';
import { subscriberPage } from './subscriber-page.repository.js';
import { LIST_NOT_FOUND } from './list.service.js';
import { findList } from './list.repository.js';
import { DEFINITION_NOT_FOUND, findDefinition } from './attribute.repository.js';
import type { CreateSubscriberBody, Subscriber, SubscriberFilterQuery, SubscriberListQuery, UpdateSubscriberBody } from './subscriber.schemas.js';
import { newSubscriberUniqueId } from './subscriber-unique-id.js';

export const SUBSCRIBER_NOT_FOUND = 'Subscriber not found.';
const EMAIL_TAKEN = 'Email already exists.';

export async function requireSubscriber(ctx: AppContext, id: number) {
  const row = await repo.findSubscriber(ctx.db, id);
  if (!row) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
  return row;
}

/** A subscriber with their lists and their whole history (the single GET). */
export async function getSubscriber(ctx: AppContext, id: number): Promise<Subscriber> {
  const row = await requireSubscriber(ctx, id);
  const [lists, entries] = await Promise.all([repo.listsOfSubscribers(ctx.db, [id]), history.historyOf(ctx.db, id)]);
  return repo.toSubscriber(row, lists.get(id), entries.map(history.toHistory));
}

/** A subscriber with their lists, `history: []` (every view but the single GET). */
async function withLists(ctx: AppContext, row: repo.SubscriberRow): Promise<Subscriber> {
  const lists = await repo.listsOfSubscribers(ctx.db, [row.id]);
  return repo.toSubscriber(row, lists.get(row.id));
}

const FIND_COLUMN = {
  email: 'email',
  foreignKey: 'foreignKey',
  foreign_key: 'foreignKey',
  uniqueId: 'uniqueId',
  unique_id: 'uniqueId',
} as const;

function booleanText(value: string | undefined): boolean | undefined {
  return value === undefined ? undefined : value === 'true' || value === '1';
}

/**
 * The list view's query as a checked filter (subscriber-filter.ts), shared by the list view and bulk actions. A list
 * or attribute that does not exist is 404 in the list view (`unknown: 'not-found'`) and a 422 at `<prefix>list_id` /
 * `<prefix>attribute_id` in a bulk request, where it is a field of the body (`unknown: 'invalid'`).
 */
export async function filterOf(
  ctx: AppContext,
  query: SubscriberFilterQuery,
  unknown: 'not-found' | 'invalid' = 'not-found',
  prefix = '',
): Promise<repo.SubscriberFilter> {
  const filter: repo.SubscriberFilter = {
    confirmed: booleanText(query.is_confirmed),
    blacklisted: booleanText(query.is_blacklisted),
    // phpList ignores find_value without find_column, and an empty value finds everything anyway.
    find: query.find_column && query.find_value ? { column: FIND_COLUMN[query.find_column], value: query.find_value } : undefined,
    listId: query.list_id,
  };
  if (query.list_id !== undefined && !(await findList(ctx.db, query.list_id))) {
    if (unknown === 'not-found') throw new NotFoundError(LIST_NOT_FOUND);
    throw ValidationError.field(`${prefix}list_id`, `There is no list with id ${query.list_id}.`);
  }
  if (query.attribute_id !== undefined && query.attribute_value) {
    if (!(await findDefinition(ctx.db, query.attribute_id))) {
      if (unknown === 'not-found') throw new NotFoundError(DEFINITION_NOT_FOUND);
      throw ValidationError.field(`${prefix}attribute_id`, `There is no attribute with id ${query.attribute_id}.`);
    }
    filter.attribute = { definitionId: query.attribute_id, value: query.attribute_value, match: query.attribute_match ?? 'contains' };
  }
  return filter;
}

export async function listSubscribers(ctx: AppContext, query: SubscriberListQuery) {
  const { afterId, limit } = cursorOf(query);
  const filter = await filterOf(ctx, query);
  const page = await subscriberPage(ctx.db, filter, afterId, limit);
  return toPage(page.items, page.total, limit, (s) => s.id);
}

/** A uniqueness race the pre-check could not see still answers phpList's 409. */
function isUniqueViolation(err: unknown): boolean {
  return driverCode(err) === '23505';
}

async function loginOf(ctx: AppContext, adminId: number): Promise<string> {
  return loginNameOf(ctx.db, adminId);
}

/**
 * Creates a subscriber: confirmed unless `request_confirmation` is true, in which case it starts unconfirmed
 * and is sent the double opt-in link (queued with the subscriber; it leaves after the answer).
 */
export async function createSubscriber(ctx: AppContext, body: CreateSubscriberBody, adminId: number, origin: HistoryOrigin): Promise<Subscriber> {
  const email = body.email.trim();
  if (await repo.emailTaken(ctx.db, email)) throw new ConflictError(EMAIL_TAKEN);
  const requestConfirmation = body.request_confirmation === true;
  const login = await loginOf(ctx, adminId);
  let row: repo.SubscriberRow;
  try {
    row = await ctx.db.transaction(async (tx) => {
      const inserted = await repo.insertSubscriber(tx, {
        email,
        uniqueId: newSubscriberUniqueId(),
        confirmed: !requestConfirmation,
        htmlEmail: body.html_email ?? false,
      });
      const detail = `Created by ${login}${requestConfirmation ? '; confirmation requested' : ''}`;
      await history.insertHistory(tx, inserted.id, origin, 'Subscriber created', detail);
      // The double opt-in link leaves after the answer, through the mail queue, written with the subscriber (by
      // reference: rendered when it is sent, as an import's are).
      if (requestConfirmation) await queueConfirmationRequests(ctx, tx, [inserted.id]);
      return inserted;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(EMAIL_TAKEN);
    throw err;
  }
  if (requestConfirmation) mailQueued(ctx);
  return repo.toSubscriber(row);
}

type Flag = 'confirmed' | 'blacklisted' | 'htmlEmail' | 'disabled';
const FLAGS: [Flag, 'confirmed' | 'blacklisted' | 'html_email' | 'disabled'][] = [
  ['confirmed', 'confirmed'],
  ['blacklisted', 'blacklisted'],
  ['htmlEmail', 'html_email'],
  ['disabled', 'disabled'],
];

/**
 * Updates the e-mail address and the flags that are sent (../shared/api/DECISIONS.md § Resources, Subscriber `PUT`).
 * The history entry names each changed field; flags with their old and new values, the address without them (it is
 * personal data).
 */
export async function updateSubscriber(
  ctx: AppContext,
  id: number,
  body: UpdateSubscriberBody,
  adminId: number,
  origin: HistoryOrigin,
): Promise<Subscriber> {
  const current = await requireSubscriber(ctx, id);
  const email = body.email.trim();
  if (await repo.emailTaken(ctx.db, email, id)) throw new ConflictError(EMAIL_TAKEN);
  const changes: Partial<repo.NewSubscriberRow> = {};
  const lines: string[] = [];
  if (email !== current.email) {
    changes.email = email;
    lines.push('email *changed*');
  }
  for (const [column, field] of FLAGS) {
    const value = body[field];
    if (typeof value === 'boolean' && value !== current[column]) {
      changes[column] = value;
      lines.push(`${field} = ${String(value)} *changed* from ${String(current[column])}`);
    }
  }
  const login = await loginOf(ctx, adminId);
  let row: repo.SubscriberRow | undefined;
  try {
    row = await ctx.db.transaction(async (tx) => {
      const updated = await repo.updateSubscriber(tx, id, changes);
      // The blacklist is one store (../shared/api/DECISIONS.md § Resources): the flag and the entry change together.
      if (updated && changes.blacklisted === true) {
        await blacklistRepo.upsertEntry(tx, { email: updated.email, reason: 'Blacklisted by an administrator', addedBy: adminId });
      } else if (updated && changes.blacklisted === false) {
        await blacklistRepo.deleteEntry(tx, updated.email);
      }
      if (updated) {
        const detail = lines.length > 0 ? lines.join('\n') : 'No user details changed';
        await history.insertHistory(tx, id, origin, `Update by ${login}`, detail);
      }
      return updated;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(EMAIL_TAKEN);
    throw err;
  }
  if (!row) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
  return withLists(ctx, row);
}

/** Deletes a subscriber with their subscriptions, attribute values and history; blacklist entries stay. */
export async function deleteSubscriber(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteSubscriber(ctx.db, id))) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
}

export async function resetBounceCount(ctx: AppContext, id: number, adminId: number, origin: HistoryOrigin) {
  const current = await requireSubscriber(ctx, id);
  const login = await loginOf(ctx, adminId);
  const row = await ctx.db.transaction(async (tx) => {
    const updated = await repo.updateSubscriber(tx, id, { bounceCount: 0 });
    if (updated) {
      const detail = `bounce_count = 0 *changed* from ${current.bounceCount}`;
      await history.insertHistory(tx, id, origin, `Bounce count reset by ${login}`, detail);
    }
    return updated;
  });
  if (!row) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
  return withLists(ctx, row);
}

/** `YYYY-MM-DD` or an ISO 8601 date-time. */
function parseDate(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) return null;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? `${value.trim()}T00:00:00Z` : value.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

export async function listHistory(ctx: AppContext, id: number, query: HistoryQuery) {
  await requireSubscriber(ctx, id);
  let dateFrom: Date | undefined;
  if (query.date_from !== undefined && query.date_from !== '') {
    const parsed = parseDate(query.date_from);
    if (!parsed) throw ValidationError.field('date_from', 'Invalid date format. Use format: Y-m-d');
    dateFrom = parsed;
  }
  const { afterId, limit } = cursorOf(query);
  const { rows, total } = await history.listHistory(
    ctx.db,
    id,
    { ip: query.ip || undefined, dateFrom, summary: query.summery ?? query.summary },
    afterId,
    limit,
  );
  return toPage(rows.map(history.toHistory), total, limit, (h) => h.id);
}
