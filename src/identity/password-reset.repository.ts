import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { administrators, passwordResetTokens, sessions } from '../db/schema/index.js';

export type PasswordResetTokenRow = typeof passwordResetTokens.$inferSelect;

/**
 * Locks the administrator row for the rest of the transaction, so that two reset requests for the same
 * administrator are counted one after the other (in every API process).
 */
export async function lockAdministrator(db: Executor, administratorId: number): Promise<void> {
  await db.select({ id: administrators.id }).from(administrators).where(eq(administrators.id, administratorId)).for('update');
}

/** The administrator's latest token row, which carries the request count of the current window. */
export async function findLatestToken(db: Executor, administratorId: number): Promise<PasswordResetTokenRow | undefined> {
  const [row] = await db
    .select()
    .from(passwordResetTokens)
    .where(eq(passwordResetTokens.administratorId, administratorId))
    .orderBy(sql`${passwordResetTokens.createdAt} desc, ${passwordResetTokens.id} desc`)
    .limit(1);
  return row;
}

/** Replaces every earlier token of the administrator by a new one. */
export async function replaceTokens(
  db: Executor,
  values: { administratorId: number; tokenHash: string; expiresAt: Date; requestCount: number; windowStartedAt: Date },
): Promise<void> {
  await db.delete(passwordResetTokens).where(eq(passwordResetTokens.administratorId, values.administratorId));
  await db.insert(passwordResetTokens).values(values);
}

/** Expired tokens of anybody are useless; they are removed as new ones are made, so the table stays small. */
export async function deleteExpiredTokens(db: Executor): Promise<void> {
  await db.delete(passwordResetTokens).where(lt(passwordResetTokens.expiresAt, sql`now()`));
}

/** The token with this hash and whether its administrator may still use it. */
export async function findToken(db: Executor, tokenHash: string) {
  const [row] = await db
    .select({
      id: passwordResetTokens.id,
      administratorId: passwordResetTokens.administratorId,
      expired: sql<boolean>`${passwordResetTokens.expiresAt} <= now()`,
      disabled: administrators.disabled,
    })
    .from(passwordResetTokens)
    .innerJoin(administrators, eq(administrators.id, passwordResetTokens.administratorId))
    .where(eq(passwordResetTokens.tokenHash, tokenHash));
  return row;
}

export async function deleteToken(db: Executor, id: number): Promise<void> {
  await db.delete(passwordResetTokens).where(eq(passwordResetTokens.id, id));
}

/**
 * Takes the token out of the table and answers its administrator when it was live: a delete with `returning` is
 * the one-time use, so two concurrent resets with the same token cannot both succeed.
 */
export async function consumeToken(db: Executor, tokenHash: string): Promise<number | undefined> {
  const [row] = await db
    .delete(passwordResetTokens)
    .where(eq(passwordResetTokens.tokenHash, tokenHash))
    .returning({
      administratorId: passwordResetTokens.administratorId,
      live: sql<boolean>`${passwordResetTokens.expiresAt} > now()`,
    });
  return row?.live ? row.administratorId : undefined;
}

/** Sets the new password hash and ends every session of the administrator. Answers false for a disabled one. */
export async function setPasswordAndEndSessions(db: Executor, administratorId: number, passwordHash: string) {
  const [row] = await db
    .update(administrators)
    .set({ passwordHash, passwordChangedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(administrators.id, administratorId), eq(administrators.disabled, false)))
    .returning({ id: administrators.id });
  if (!row) return false;
  await db.delete(sessions).where(eq(sessions.administratorId, administratorId));
  return true;
}
