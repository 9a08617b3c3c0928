import { and, asc, count, eq, gt, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { adminAttributeDefinitions, adminAttributeValues } from '../db/schema/index.js';
import type { AdminAttributeDefinition } from './admin-attribute.schemas.js';

export type DefinitionRow = typeof adminAttributeDefinitions.$inferSelect;
export type NewDefinitionRow = typeof adminAttributeDefinitions.$inferInsert;
export type ValueRow = typeof adminAttributeValues.$inferSelect;

/** Row → API shape (reference §6.3). */
export function toDefinition(row: DefinitionRow): AdminAttributeDefinition {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    list_order: row.listOrder,
    default_value: row.defaultValue,
    required: row.required,
  };
}

export async function findDefinition(db: Executor, id: number): Promise<DefinitionRow | undefined> {
  const [row] = await db.select().from(adminAttributeDefinitions).where(eq(adminAttributeDefinitions.id, id));
  return row;
}

/** Whether another definition (not `exceptId`) already has this name, case-insensitively. */
export async function definitionNameTaken(db: Executor, name: string, exceptId?: number): Promise<boolean> {
  const [row] = await db
    .select({ id: adminAttributeDefinitions.id })
    .from(adminAttributeDefinitions)
    .where(and(sql`lower(${adminAttributeDefinitions.name}) = lower(${name})`, exceptId ? ne(adminAttributeDefinitions.id, exceptId) : undefined))
    .limit(1);
  return row !== undefined;
}

export async function listDefinitions(db: Executor, afterId: number, limit: number) {
  const rows = await db
    .select()
    .from(adminAttributeDefinitions)
    .where(gt(adminAttributeDefinitions.id, afterId))
    .orderBy(asc(adminAttributeDefinitions.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(adminAttributeDefinitions);
  return { rows, total: total?.n ?? 0 };
}

export async function insertDefinition(db: Executor, values: NewDefinitionRow): Promise<DefinitionRow> {
  const [row] = await db.insert(adminAttributeDefinitions).values(values).returning();
  return row!;
}

export async function updateDefinition(db: Executor, id: number, values: Partial<NewDefinitionRow>): Promise<DefinitionRow | undefined> {
  const [row] = await db
    .update(adminAttributeDefinitions)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(adminAttributeDefinitions.id, id))
    .returning();
  return row;
}

/** Deletes a definition; its values go with it (foreign key cascade). */
export async function deleteDefinition(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(adminAttributeDefinitions).where(eq(adminAttributeDefinitions.id, id)).returning({ id: adminAttributeDefinitions.id });
  return rows.length > 0;
}

/** One value with its definition, or undefined when the administrator has no value for it. */
export async function findValue(db: Executor, administratorId: number, definitionId: number) {
  const [row] = await db
    .select({ value: adminAttributeValues, definition: adminAttributeDefinitions })
    .from(adminAttributeValues)
    .innerJoin(adminAttributeDefinitions, eq(adminAttributeDefinitions.id, adminAttributeValues.definitionId))
    .where(and(eq(adminAttributeValues.administratorId, administratorId), eq(adminAttributeValues.definitionId, definitionId)));
  return row;
}

/** An administrator's values with their definitions, ordered by definition id (the cursor, reference §3). */
export async function listValues(db: Executor, administratorId: number, afterDefinitionId: number, limit: number) {
  const rows = await db
    .select({ value: adminAttributeValues, definition: adminAttributeDefinitions })
    .from(adminAttributeValues)
    .innerJoin(adminAttributeDefinitions, eq(adminAttributeDefinitions.id, adminAttributeValues.definitionId))
    .where(and(eq(adminAttributeValues.administratorId, administratorId), gt(adminAttributeValues.definitionId, afterDefinitionId)))
    .orderBy(asc(adminAttributeValues.definitionId))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(adminAttributeValues).where(eq(adminAttributeValues.administratorId, administratorId));
  return { rows, total: total?.n ?? 0 };
}

/** Creates or replaces the value in one statement, so two writers cannot both insert. */
export async function upsertValue(db: Executor, administratorId: number, definitionId: number, value: string): Promise<ValueRow> {
  const [row] = await db
    .insert(adminAttributeValues)
    .values({ administratorId, definitionId, value })
    .onConflictDoUpdate({
      target: [adminAttributeValues.administratorId, adminAttributeValues.definitionId],
      set: { value, updatedAt: new Date() },
    })
    .returning();
  return row!;
}

export async function deleteValue(db: Executor, administratorId: number, definitionId: number): Promise<boolean> {
  const rows = await db
    .delete(adminAttributeValues)
    .where(and(eq(adminAttributeValues.administratorId, administratorId), eq(adminAttributeValues.definitionId, definitionId)))
    .returning({ id: adminAttributeValues.definitionId });
  return rows.length > 0;
}
