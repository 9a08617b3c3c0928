import { and, asc, count, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { attributeDefinitions, attributeOptions, subscriberAttributeValues } from '../db/schema/index.js';
import { attributePlaceholder } from '../shared/placeholder-name.js';
import type { AttributeDefinition } from './attribute.schemas.js';

/** phpList's 404 message for a missing attribute definition. */
export const DEFINITION_NOT_FOUND = 'Attribute definition not found.';

export type DefinitionRow = typeof attributeDefinitions.$inferSelect;
export type NewDefinitionRow = typeof attributeDefinitions.$inferInsert;
export type OptionRow = typeof attributeOptions.$inferSelect;
export interface DefinitionWithOptions extends DefinitionRow {
  readonly options: OptionRow[];
}

/** Row → API shape (reference §6.10); options ordered by list_order, then id. */
export function toDefinition(row: DefinitionWithOptions): AttributeDefinition {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    list_order: row.listOrder,
    default_value: row.defaultValue,
    required: row.required,
    subscriber_editable: row.subscriberEditable,
    options: row.options.map((o) => ({ id: o.id, name: o.name, list_order: o.listOrder })),
    placeholder: attributePlaceholder(row.name),
  };
}

async function optionsOf(db: Executor, definitionIds: number[]): Promise<Map<number, OptionRow[]>> {
  const byDefinition = new Map<number, OptionRow[]>(definitionIds.map((id) => [id, []]));
  if (definitionIds.length === 0) return byDefinition;
  const rows = await db
    .select()
    .from(attributeOptions)
    .where(inArray(attributeOptions.definitionId, definitionIds))
    .orderBy(asc(attributeOptions.listOrder), asc(attributeOptions.id));
  for (const row of rows) byDefinition.get(row.definitionId)?.push(row);
  return byDefinition;
}

async function withOptions(db: Executor, rows: DefinitionRow[]): Promise<DefinitionWithOptions[]> {
  const options = await optionsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({ ...row, options: options.get(row.id) ?? [] }));
}

export async function findDefinition(db: Executor, id: number): Promise<DefinitionWithOptions | undefined> {
  const rows = await db.select().from(attributeDefinitions).where(eq(attributeDefinitions.id, id));
  return (await withOptions(db, rows))[0];
}

/** Every definition with its options: the import, the export and the renderer resolve columns and values with it. */
export async function loadDefinitionsWithOptions(db: Executor): Promise<DefinitionWithOptions[]> {
  const rows = await db.select().from(attributeDefinitions).orderBy(asc(attributeDefinitions.id));
  return withOptions(db, rows);
}

export async function definitionNameTaken(db: Executor, name: string, exceptId?: number): Promise<boolean> {
  const [row] = await db
    .select({ id: attributeDefinitions.id })
    .from(attributeDefinitions)
    .where(and(sql`lower(${attributeDefinitions.name}) = lower(${name})`, exceptId ? ne(attributeDefinitions.id, exceptId) : undefined))
    .limit(1);
  return row !== undefined;
}

export async function listDefinitions(db: Executor, afterId: number, limit: number) {
  const rows = await db
    .select()
    .from(attributeDefinitions)
    .where(gt(attributeDefinitions.id, afterId))
    .orderBy(asc(attributeDefinitions.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(attributeDefinitions);
  return { rows: await withOptions(db, rows), total: total?.n ?? 0 };
}

export async function insertDefinition(db: Executor, values: NewDefinitionRow): Promise<DefinitionRow> {
  const [row] = await db.insert(attributeDefinitions).values(values).returning();
  return row!;
}

export async function updateDefinition(db: Executor, id: number, values: Partial<NewDefinitionRow>): Promise<void> {
  await db
    .update(attributeDefinitions)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(attributeDefinitions.id, id));
}

export async function deleteDefinition(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(attributeDefinitions).where(eq(attributeDefinitions.id, id)).returning({ id: attributeDefinitions.id });
  return rows.length > 0;
}

export async function insertOptions(db: Executor, definitionId: number, options: { name: string; listOrder: number }[]) {
  if (options.length === 0) return;
  await db.insert(attributeOptions).values(options.map((o) => ({ definitionId, name: o.name, listOrder: o.listOrder })));
}

export async function updateOption(db: Executor, id: number, values: { name: string; listOrder: number }) {
  await db.update(attributeOptions).set(values).where(eq(attributeOptions.id, id));
}

/** Ids among `optionIds` that some subscriber's value of this definition refers to (one id, or one of a list). */
export async function optionsInUse(db: Executor, definitionId: number, optionIds: number[]): Promise<Set<number>> {
  if (optionIds.length === 0) return new Set();
  const rows = await db
    .select({ value: subscriberAttributeValues.value })
    .from(subscriberAttributeValues)
    .where(
      and(
        eq(subscriberAttributeValues.definitionId, definitionId),
        sql`string_to_array(${subscriberAttributeValues.value}, ',') && array[${sql.join(
          optionIds.map((id) => sql`${String(id)}`),
          sql`, `,
        )}]::text[]`,
      ),
    );
  const used = new Set<number>();
  for (const row of rows) for (const id of (row.value ?? '').split(',')) used.add(Number(id));
  return new Set(optionIds.filter((id) => used.has(id)));
}

export async function deleteOptions(db: Executor, ids: number[]) {
  if (ids.length > 0) await db.delete(attributeOptions).where(inArray(attributeOptions.id, ids));
}

export type ValueRow = typeof subscriberAttributeValues.$inferSelect;

const valueOf = (subscriberId: number, definitionId: number) =>
  and(eq(subscriberAttributeValues.subscriberId, subscriberId), eq(subscriberAttributeValues.definitionId, definitionId));

/** Creates or replaces a subscriber's value of one attribute. */
export async function upsertValue(db: Executor, subscriberId: number, definitionId: number, value: string | null): Promise<ValueRow> {
  const [row] = await db
    .insert(subscriberAttributeValues)
    .values({ subscriberId, definitionId, value })
    .onConflictDoUpdate({
      target: [subscriberAttributeValues.subscriberId, subscriberAttributeValues.definitionId],
      set: { value, updatedAt: new Date() },
    })
    .returning();
  return row!;
}

export async function findValue(db: Executor, subscriberId: number, definitionId: number): Promise<ValueRow | undefined> {
  const [row] = await db.select().from(subscriberAttributeValues).where(valueOf(subscriberId, definitionId));
  return row;
}

/** A page of a subscriber's values by definition id, and how many they have in all. */
export async function listValues(db: Executor, subscriberId: number, afterDefinitionId: number, limit: number) {
  const ofSubscriber = eq(subscriberAttributeValues.subscriberId, subscriberId);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(subscriberAttributeValues)
      .where(and(ofSubscriber, gt(subscriberAttributeValues.definitionId, afterDefinitionId)))
      .orderBy(asc(subscriberAttributeValues.definitionId))
      .limit(limit),
    db.select({ n: count() }).from(subscriberAttributeValues).where(ofSubscriber),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Whether there was a value to delete. */
export async function deleteValue(db: Executor, subscriberId: number, definitionId: number): Promise<boolean> {
  const rows = await db
    .delete(subscriberAttributeValues)
    .where(valueOf(subscriberId, definitionId))
    .returning({ id: subscriberAttributeValues.definitionId });
  return rows.length > 0;
}
