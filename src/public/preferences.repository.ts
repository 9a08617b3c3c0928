import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { bool, int, text, textOrNull } from '../db/row.js';
import { attributeDefinitions, lists, subscriberAttributeValues, subscribers, subscriptions } from '../db/schema/index.js';

export interface PreferenceList {
  readonly id: number;
  readonly name: string;
  readonly description: string | null;
  readonly isPublic: boolean;
  readonly member: boolean;
}

/**
 * What the preference centre offers: every public list, and the lists the subscriber is on (a non-public one can be
 * left, not joined). In the administrators' order (list_position), then by name.
 */
export async function listsForSubscriber(db: Executor, subscriberId: number): Promise<PreferenceList[]> {
  return queryRows(
    db,
    sql`select l.id, l.name, l.description, l.public, (s.subscriber_id is not null) as member
        from ${lists} l
        left join ${subscriptions} s on s.list_id = l.id and s.subscriber_id = ${subscriberId}
        where l.public or s.subscriber_id is not null
        order by l.list_position nulls last, l.name, l.id`,
    (row): PreferenceList => ({
      id: int(row, 'id'),
      name: text(row, 'name'),
      description: textOrNull(row, 'description'),
      isPublic: bool(row, 'public'),
      member: bool(row, 'member'),
    }),
  );
}

/** Ids of the definitions subscribers may edit, in the administrators' order. */
export async function editableDefinitionIds(db: Executor): Promise<number[]> {
  const rows = await db
    .select({ id: attributeDefinitions.id })
    .from(attributeDefinitions)
    .where(eq(attributeDefinitions.subscriberEditable, true))
    .orderBy(sql`${attributeDefinitions.listOrder} nulls last`, asc(attributeDefinitions.id));
  return rows.map((r) => r.id);
}

export async function attributeValues(db: Executor, subscriberId: number, definitionIds: number[]): Promise<Map<number, string | null>> {
  if (definitionIds.length === 0) return new Map();
  const rows = await db
    .select({ definitionId: subscriberAttributeValues.definitionId, value: subscriberAttributeValues.value })
    .from(subscriberAttributeValues)
    .where(and(eq(subscriberAttributeValues.subscriberId, subscriberId), inArray(subscriberAttributeValues.definitionId, definitionIds)));
  return new Map(rows.map((r) => [r.definitionId, r.value]));
}

export async function upsertAttributeValue(db: Executor, subscriberId: number, definitionId: number, value: string | null): Promise<void> {
  await db
    .insert(subscriberAttributeValues)
    .values({ subscriberId, definitionId, value })
    .onConflictDoUpdate({
      target: [subscriberAttributeValues.subscriberId, subscriberAttributeValues.definitionId],
      set: { value, updatedAt: new Date() },
    });
}

/**
 * Moves the subscriber to a new address unless another subscriber has it (case-insensitively); answers whether it
 * did. One statement, so two changes racing for one address cannot both win (the unique index decides).
 */
export async function changeEmailIfFree(db: Executor, subscriberId: number, email: string): Promise<boolean> {
  const changed = await queryRows(
    db,
    sql`update ${subscribers} set email = ${email}, updated_at = now()
        where id = ${subscriberId}
          and not exists (select 1 from ${subscribers} o where lower(o.email) = lower(${email}) and o.id <> ${subscriberId})
        returning id`,
    (row) => int(row, 'id'),
  );
  return changed.length > 0;
}

/** The id of the subscriber with this address (case-insensitively), if any. */
export async function addressOwner(db: Executor, email: string): Promise<number | undefined> {
  const [row] = await db
    .select({ id: subscribers.id })
    .from(subscribers)
    .where(sql`lower(${subscribers.email}) = lower(${email})`)
    .limit(1);
  return row?.id;
}
