import { createHash } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { attributeDefinitions, links, listCampaigns, lists, subscriberAttributeValues, subscribers, subscriptions } from '../../db/schema/index.js';

/*
 * The SQL the composer needs beyond the messaging and subscription repositories: the campaign's first list (for
 * List-Id), its tracked links, and the recipient data of a batch of subscribers.
 */

/** `{1,2,3}`: a batch of ids as one array parameter (`= any(…)`), whatever its size, instead of one per id. */
function intArray(ids: readonly number[]): string {
  return `{${ids.map((id) => Math.trunc(id)).join(',')}}`;
}

/** The list the campaign goes to with the lowest id, or undefined when it has none yet (a draft). */
export async function firstListOf(db: Executor, campaignId: number): Promise<{ id: number; name: string } | undefined> {
  const [row] = await db
    .select({ id: lists.id, name: lists.name })
    .from(listCampaigns)
    .innerJoin(lists, eq(lists.id, listCampaigns.listId))
    .where(eq(listCampaigns.campaignId, campaignId))
    .orderBy(asc(lists.id))
    .limit(1);
  return row;
}

/** Every attribute definition's name (placeholders are recognised by them). */
export async function attributeNames(db: Executor): Promise<string[]> {
  const rows = await db.select({ name: attributeDefinitions.name }).from(attributeDefinitions);
  return rows.map((r) => r.name);
}

/**
 * Stores each URL once per campaign and answers url → link id. One multi-row insert that skips URLs already stored
 * (unique on (campaign_id, md5(url)), so concurrent compiles of one campaign agree), then one read of the ids.
 */
export async function upsertLinks(db: Executor, campaignId: number, urls: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (urls.length === 0) return out;
  await db
    .insert(links)
    .values(urls.map((url) => ({ campaignId, url })))
    .onConflictDoNothing();
  // md5 as the unique index has it, so that index finds the rows (PostgreSQL's md5 of text is that of its UTF-8).
  const rows = await db
    .select({ id: links.id, url: links.url })
    .from(links)
    .where(
      and(
        eq(links.campaignId, campaignId),
        inArray(
          sql`md5(${links.url})`,
          urls.map((url) => createHash('md5').update(url, 'utf8').digest('hex')),
        ),
      ),
    );
  for (const row of rows) out.set(row.url, row.id);
  return out;
}

export type SubscriberRow = Pick<
  typeof subscribers.$inferSelect,
  'id' | 'uniqueId' | 'email' | 'htmlEmail' | 'confirmed' | 'blacklisted' | 'disabled' | 'bounceCount' | 'createdAt' | 'updatedAt'
>;

export async function subscribersByIds(db: Executor, ids: readonly number[]): Promise<SubscriberRow[]> {
  return db
    .select({
      id: subscribers.id,
      uniqueId: subscribers.uniqueId,
      email: subscribers.email,
      htmlEmail: subscribers.htmlEmail,
      confirmed: subscribers.confirmed,
      blacklisted: subscribers.blacklisted,
      disabled: subscribers.disabled,
      bounceCount: subscribers.bounceCount,
      createdAt: subscribers.createdAt,
      updatedAt: subscribers.updatedAt,
    })
    .from(subscribers)
    .where(sql`${subscribers.id} = any(${intArray(ids)}::int[])`);
}

/** The non-empty attribute values of a batch of subscribers (primary key (subscriber_id, definition_id) serves it). */
export async function attributeValuesOf(db: Executor, ids: readonly number[]) {
  return db
    .select({
      subscriberId: subscriberAttributeValues.subscriberId,
      definitionId: subscriberAttributeValues.definitionId,
      value: subscriberAttributeValues.value,
    })
    .from(subscriberAttributeValues)
    .where(and(sql`${subscriberAttributeValues.subscriberId} = any(${intArray(ids)}::int[])`, sql`${subscriberAttributeValues.value} <> ''`));
}

/** The public lists each subscriber of a batch belongs to, by name (subscriptions_subscriber_id_idx serves it). */
export async function publicListNamesOf(db: Executor, ids: readonly number[]) {
  return db
    .select({ subscriberId: subscriptions.subscriberId, name: lists.name })
    .from(subscriptions)
    .innerJoin(lists, eq(lists.id, subscriptions.listId))
    .where(and(sql`${subscriptions.subscriberId} = any(${intArray(ids)}::int[])`, eq(lists.isPublic, true)))
    .orderBy(asc(lists.name), asc(lists.id));
}
