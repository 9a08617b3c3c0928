import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { campaigns } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import type { Campaign } from './campaign.schemas.js';
import { findTemplate, imagesOf, toTemplate } from './template.repository.js';

export type CampaignRow = typeof campaigns.$inferSelect;
export type NewCampaignRow = typeof campaigns.$inferInsert;

export async function findCampaign(db: Executor, id: number): Promise<CampaignRow | undefined> {
  const [row] = await db.select().from(campaigns).where(eq(campaigns.id, id));
  return row;
}

/** Row → reference §6.14, with its template (and the template's images) or null. */
export async function toCampaignView(db: Executor, row: CampaignRow): Promise<Campaign> {
  return (await toCampaignViews(db, [row]))[0]!;
}

/** Several rows at once: one query for their templates' images, whatever the number of campaigns. */
export async function toCampaignViews(db: Executor, rows: readonly CampaignRow[]): Promise<Campaign[]> {
  const templateIds = [...new Set(rows.flatMap((r) => (r.templateId === null ? [] : [r.templateId])))];
  const heads = new Map<number, NonNullable<Awaited<ReturnType<typeof findTemplate>>>>();
  for (const id of templateIds) {
    const head = await findTemplate(db, id);
    if (head) heads.set(id, head);
  }
  const images = await imagesOf(db, templateIds);
  return rows.map((row) => {
    const head = row.templateId === null ? undefined : heads.get(row.templateId);
    return {
      id: row.id,
      unique_id: row.uniqueId,
      template: head ? toTemplate(head, images.get(head.id) ?? []) : null,
      message_content: {
        subject: row.subject,
        name: row.name,
        text: row.body,
        text_message: row.textBody,
        footer: row.footer,
        editor: row.editor,
      },
      message_format: {
        html_formated: row.htmlFormatted,
        send_format: row.sendFormat,
        as_text: row.asText,
        as_html: row.asHtml,
        as_text_and_html: row.asTextAndHtml,
        as_pdf: row.asPdf,
        // phpList emits the as_text_and_html value here ([bug]); this is the real counter.
        as_text_and_pdf: row.asTextAndPdf,
      },
      message_metadata: {
        status: row.status,
        processed: row.processed,
        views: row.views,
        bounce_count: row.bounceCount,
        entered: toAtom(row.createdAt),
        sent: toAtom(row.sentAt),
        send_start: toAtom(row.sendStart),
      },
      message_schedule: {
        repeat_interval: row.repeatInterval,
        repeat_until: toAtom(row.repeatUntil),
        requeue_interval: row.requeueInterval,
        requeue_until: toAtom(row.requeueUntil),
        embargo: toAtom(row.embargo),
      },
      message_options: {
        from_field: row.fromField,
        to_field: row.toField,
        reply_to: row.replyTo,
        user_selection: row.userSelection,
      },
      created_at: toAtom(row.createdAt),
      updated_at: toAtom(row.updatedAt),
    };
  });
}

/** One keyset page of an owner's campaigns, optionally by a substring of subject or name and status, and how many match. */
export async function listOwnedCampaigns(
  db: Executor,
  ownerId: number,
  subject: string | undefined,
  afterId: number,
  limit: number,
  status?: string,
) {
  const filter = and(
    eq(campaigns.ownerId, ownerId),
    status ? eq(campaigns.status, status) : undefined,
    subject ? substringOfSubjectOrName(subject) : undefined,
  );
  const rows = await db
    .select()
    .from(campaigns)
    .where(and(filter, gt(campaigns.id, afterId)))
    .orderBy(asc(campaigns.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(campaigns).where(filter);
  return { rows, total: total?.n ?? 0 };
}

function substringOfSubjectOrName(text: string) {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`(${campaigns.subject} ilike ${pattern} or ${campaigns.name} ilike ${pattern})`;
}

export async function insertCampaign(db: Executor, values: NewCampaignRow): Promise<CampaignRow> {
  const [row] = await db.insert(campaigns).values(values).returning();
  return row!;
}

export async function updateCampaign(db: Executor, id: number, values: Partial<NewCampaignRow>): Promise<CampaignRow | undefined> {
  const [row] = await db
    .update(campaigns)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(campaigns.id, id))
    .returning();
  return row;
}

export async function deleteCampaign(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(campaigns).where(eq(campaigns.id, id)).returning({ id: campaigns.id });
  return rows.length > 0;
}
