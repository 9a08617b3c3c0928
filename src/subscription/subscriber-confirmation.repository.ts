import { and, eq, inArray, notExists, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { blacklist, subscribers } from '../db/schema/index.js';

/** What a confirmation request is made of. */
export interface ConfirmationTarget {
  readonly id: number;
  readonly email: string;
  readonly uniqueId: string;
  readonly htmlEmail: boolean;
}

/**
 * The subscribers among `ids` that still exist and still await confirmation: unconfirmed, not flagged blacklisted,
 * and whose address has no blacklist entry (an address counts as blacklisted when either says so; blacklist.service).
 * One statement for a drainer's batch.
 */
export async function awaitingConfirmation(db: Executor, ids: readonly number[]): Promise<ConfirmationTarget[]> {
  if (ids.length === 0) return [];
  return db
    .select({ id: subscribers.id, email: subscribers.email, uniqueId: subscribers.uniqueId, htmlEmail: subscribers.htmlEmail })
    .from(subscribers)
    .where(
      and(
        inArray(subscribers.id, [...ids]),
        eq(subscribers.confirmed, false),
        eq(subscribers.blacklisted, false),
        notExists(
          db
            .select({ one: sql`1` })
            .from(blacklist)
            .where(sql`lower(${blacklist.email}) = lower(${subscribers.email})`),
        ),
      ),
    );
}
