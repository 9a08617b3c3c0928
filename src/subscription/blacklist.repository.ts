import { and, asc, count, gt, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { blacklist, subscribers } from '../db/schema/index.js';
import { reportBlacklisted } from './subscriber-webhooks.js';

export type BlacklistRow = typeof blacklist.$inferSelect;

const sameEmail = (column: typeof blacklist.email | typeof subscribers.email, email: string) => sql`lower(${column}) = lower(${email})`;

export async function findEntry(db: Executor, email: string): Promise<BlacklistRow | undefined> {
  const [row] = await db.select().from(blacklist).where(sameEmail(blacklist.email, email));
  return row;
}

/** Whether a subscriber with this address carries the blacklisted flag. */
export async function subscriberFlagged(db: Executor, email: string): Promise<{ email: string } | undefined> {
  const [row] = await db
    .select({ email: subscribers.email, blacklisted: subscribers.blacklisted })
    .from(subscribers)
    .where(sameEmail(subscribers.email, email));
  return row?.blacklisted ? { email: row.email } : undefined;
}

/** Inserts the entry unless the address is already there (any case); answers the stored entry either way. */
export async function upsertEntry(db: Executor, values: { email: string; reason: string | null; addedBy: number }): Promise<BlacklistRow> {
  await db.insert(blacklist).values(values).onConflictDoNothing();
  return (await findEntry(db, values.email))!;
}

export async function deleteEntry(db: Executor, email: string): Promise<void> {
  await db.delete(blacklist).where(sameEmail(blacklist.email, email));
}

export async function setSubscriberFlag(db: Executor, email: string, blacklisted: boolean): Promise<void> {
  const rows = await db
    .update(subscribers)
    .set({ blacklisted, updatedAt: new Date() })
    .where(sql`${sameEmail(subscribers.email, email)} and ${subscribers.blacklisted} <> ${blacklisted}`)
    .returning();
  if (blacklisted) await reportBlacklisted(db, rows);
}

/** The lower-cased addresses among `emails` that are in the blacklist table. */
export async function blacklistedAmong(db: Executor, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const lowered = emails.map((e) => e.toLowerCase());
  const rows = await db
    .select({ email: blacklist.email })
    .from(blacklist)
    .where(inArray(sql`lower(${blacklist.email})`, lowered));
  return new Set(rows.map((r) => r.email.toLowerCase()));
}

/**
 * A keyset page of entries (id order) whose address contains `find`, and how many match. The substring is served by
 * the trigram index of routine 051 for three characters or more.
 */
export async function entryPage(
  db: Executor,
  afterId: number,
  limit: number,
  find: string | undefined,
): Promise<{ rows: BlacklistRow[]; total: number }> {
  const contains = find ? sql`${blacklist.email} ilike ${`%${find.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}` : undefined;
  const rows = await db
    .select()
    .from(blacklist)
    .where(and(gt(blacklist.id, afterId), contains))
    .orderBy(asc(blacklist.id))
    .limit(limit);
  const [counted] = await db.select({ n: count() }).from(blacklist).where(contains);
  return { rows, total: counted?.n ?? 0 };
}
