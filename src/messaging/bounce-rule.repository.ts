import { createHash } from 'node:crypto';
import { and, asc, eq, ne } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { bounceRules } from '../db/schema/index.js';
import type { BounceRegex, BounceRegexBody } from './bounce-rule.schemas.js';

export type BounceRuleRow = typeof bounceRules.$inferSelect;

export function toBounceRegex(row: BounceRuleRow): BounceRegex {
  return {
    id: row.id,
    regex: row.regex,
    regex_hash: row.regexHash,
    action: row.action,
    list_order: row.listOrder,
    admin_id: row.adminId,
    comment: row.comment,
    status: row.status,
    count: row.matchCount,
  };
}

export const regexHash = (regex: string) => createHash('md5').update(regex).digest('hex');

/** Body → columns; every field written (PUT replaces). */
export function ruleColumns(body: BounceRegexBody) {
  return {
    regex: body.regex,
    regexHash: regexHash(body.regex),
    action: body.action,
    status: body.status,
    listOrder: body.list_order ?? 0,
    comment: body.comment ?? null,
  };
}

/** Every rule in the order bounce processing applies them. */
export async function listRules(db: Executor): Promise<BounceRuleRow[]> {
  return db.select().from(bounceRules).orderBy(asc(bounceRules.listOrder), asc(bounceRules.id));
}

export async function findRule(db: Executor, id: number): Promise<BounceRuleRow | undefined> {
  const [row] = await db.select().from(bounceRules).where(eq(bounceRules.id, id));
  return row;
}

export async function hashTaken(db: Executor, hash: string, exceptId?: number): Promise<boolean> {
  const same = eq(bounceRules.regexHash, hash);
  const [row] = await db
    .select({ id: bounceRules.id })
    .from(bounceRules)
    .where(exceptId === undefined ? same : and(same, ne(bounceRules.id, exceptId)));
  return row !== undefined;
}

export async function insertRule(db: Executor, values: typeof bounceRules.$inferInsert): Promise<BounceRuleRow> {
  const [row] = await db.insert(bounceRules).values(values).returning();
  return row!;
}

export async function updateRule(db: Executor, id: number, values: Partial<typeof bounceRules.$inferInsert>): Promise<BounceRuleRow | undefined> {
  const [row] = await db
    .update(bounceRules)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(bounceRules.id, id))
    .returning();
  return row;
}

export async function deleteRule(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(bounceRules).where(eq(bounceRules.id, id)).returning({ id: bounceRules.id });
  return rows.length > 0;
}
