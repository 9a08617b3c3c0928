import { inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { blacklist, subscribers } from '../db/schema/index.js';

/*
 * Lookups by address for the test send, served by the unique lower(email) indexes of both tables.
 */

/** The subscribers with these addresses (compared case-insensitively). */
export async function subscribersByEmails(db: Executor, emails: readonly string[]) {
  if (emails.length === 0) return [];
  return db
    .select({ id: subscribers.id, email: subscribers.email, blacklisted: subscribers.blacklisted })
    .from(subscribers)
    .where(
      inArray(
        sql`lower(${subscribers.email})`,
        emails.map((e) => e.toLowerCase()),
      ),
    );
}

/** Which of these addresses are on the blacklist, lower-cased. */
export async function blacklistedEmails(db: Executor, emails: readonly string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await db
    .select({ email: sql<string>`lower(${blacklist.email})` })
    .from(blacklist)
    .where(
      inArray(
        sql`lower(${blacklist.email})`,
        emails.map((e) => e.toLowerCase()),
      ),
    );
  return new Set(rows.map((r) => r.email));
}
