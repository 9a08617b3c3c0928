import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { attachments, campaigns, deliveries, subscribers } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import type { Attachment } from './attachment.schemas.js';

export type AttachmentRow = typeof attachments.$inferSelect;

export function toAttachment(row: AttachmentRow): Attachment {
  return {
    id: row.id,
    filename: row.filename,
    mime_type: row.mimeType,
    size: row.size,
    description: row.description,
    created_at: toAtom(row.createdAt),
  };
}

export async function campaignExists(db: Executor, id: number): Promise<boolean> {
  const [row] = await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, id));
  return row !== undefined;
}

export async function findAttachment(db: Executor, id: number): Promise<AttachmentRow | undefined> {
  const [row] = await db.select().from(attachments).where(eq(attachments.id, id));
  return row;
}

/** A campaign's attachments in upload order (also what the sender attaches). */
export async function listCampaignAttachments(db: Executor, campaignId: number): Promise<AttachmentRow[]> {
  return db.select().from(attachments).where(eq(attachments.campaignId, campaignId)).orderBy(asc(attachments.id));
}

export async function insertAttachment(db: Executor, values: typeof attachments.$inferInsert): Promise<AttachmentRow> {
  const [row] = await db.insert(attachments).values(values).returning();
  return row!;
}

export async function deleteAttachment(db: Executor, id: number): Promise<void> {
  await db.delete(attachments).where(eq(attachments.id, id));
}

export async function hashInUse(db: Executor, hash: string): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(attachments).where(eq(attachments.contentHash, hash));
  return (row?.n ?? 0) > 0;
}

/**
 * Serialises everything that adds or drops a reference to one stored file (upload, delete), so a file is never
 * removed while a new row comes to point at it. Held until the transaction ends.
 */
export async function lockHash(tx: Executor, hash: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(7341, hashtext(${hash}))`);
}

export async function findSubscriberIdByUid(db: Executor, uid: string): Promise<number | undefined> {
  const [row] = await db.select({ id: subscribers.id }).from(subscribers).where(eq(subscribers.uniqueId, uid));
  return row?.id;
}

/** Was this subscriber sent this campaign? A `sent` delivery says so (served by the unique (campaign, subscriber) index). */
export async function wasSent(db: Executor, campaignId: number, subscriberId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(and(eq(deliveries.campaignId, campaignId), eq(deliveries.subscriberId, subscriberId), eq(deliveries.status, 'sent')));
  return row !== undefined;
}
