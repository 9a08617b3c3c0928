import type { Executor } from '../db/client.js';
import * as repo from './rate-limit.repository.js';

/*
 * Rate limits shared by every worker through the database (`send_rate_windows`): a global messages-per-second
 * window and one window per recipient domain. Workers reserve a whole batch's worth at once, so the cost is one
 * statement per batch, not per message. The SQL is in rate-limit.repository.ts.
 */

export type { Grant, Want } from './rate-limit.repository.js';
export { giveBack, takeStrict, takeTokens } from './rate-limit.repository.js';

export const GLOBAL_KEY = 'global';
export const domainKey = (domain: string) => `domain:${domain}`;

/** Drops the windows nobody will read again (see the repository for how long each kind is kept). */
export function deleteOldWindows(db: Executor, domainWindowSeconds: number): Promise<void> {
  return repo.deleteOldWindows(db, GLOBAL_KEY, domainWindowSeconds);
}

/** The recipient's domain, lower-cased (the part after the last `@`). */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}
