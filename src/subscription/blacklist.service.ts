import type { AppContext } from '../context.js';
import { cursorOf, toPage } from '../shared/pagination.js';
import { toAtom } from '../shared/time.js';
import * as repo from './blacklist.repository.js';
import type { AddToBlacklistBody, BlacklistCheck, BlacklistEntry, BlacklistListQuery } from './blacklist.schemas.js';

/*
 * One blacklist (../shared/api/DECISIONS.md § Resources): the blacklist table and the subscribers' `blacklisted` flag
 * move together. An address counts as blacklisted when either says so, so a flag set elsewhere (subscriber update,
 * bounces) is honoured too.
 */

function toEntry(row: repo.BlacklistRow): BlacklistEntry {
  return { email: row.email, added: toAtom(row.createdAt), reason: row.reason };
}

export async function check(ctx: AppContext, email: string): Promise<BlacklistCheck> {
  const entry = await repo.findEntry(ctx.db, email);
  if (entry) return { blacklisted: true, reason: entry.reason };
  return { blacklisted: (await repo.subscriberFlagged(ctx.db, email)) !== undefined, reason: null };
}

/** Idempotent: an address already listed keeps its entry (date and reason); the subscriber is flagged either way. */
export async function add(ctx: AppContext, body: AddToBlacklistBody, callerId: number): Promise<BlacklistEntry> {
  const email = body.email.trim();
  const row = await ctx.db.transaction(async (tx) => {
    const stored = await repo.upsertEntry(tx, { email, reason: body.reason ?? null, addedBy: callerId });
    await repo.setSubscriberFlag(tx, email, true);
    return stored;
  });
  return toEntry(row);
}

/** The entry, or null when the address is not blacklisted. A flagged subscriber without an entry has `added: null`. */
export async function info(ctx: AppContext, email: string): Promise<BlacklistEntry | null> {
  const entry = await repo.findEntry(ctx.db, email);
  if (entry) return toEntry(entry);
  const flagged = await repo.subscriberFlagged(ctx.db, email);
  return flagged ? { email: flagged.email, added: null, reason: null } : null;
}

/** Clears the entry and the subscriber's flag; an address not blacklisted is no error. */
export async function remove(ctx: AppContext, email: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await repo.deleteEntry(tx, email);
    await repo.setSubscriberFlag(tx, email, false);
  });
}

/** The blacklist table's entries, a keyset page; subscribers flagged without an entry are not listed. */
export async function list(ctx: AppContext, query: BlacklistListQuery) {
  const { afterId, limit } = cursorOf(query);
  const { rows, total } = await repo.entryPage(ctx.db, afterId, limit, query.email?.trim() || undefined);
  const items = rows.map((r) => ({ id: r.id, email: r.email, added: toAtom(r.createdAt), reason: r.reason }));
  return toPage(items, total, limit, (e) => e.id);
}
