import { and, asc, count, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { templateImages, templates } from '../db/schema/index.js';
import type { ExtractedImage } from './template-html.js';
import type { Template, TemplateImage } from './template.schemas.js';

export type TemplateRow = typeof templates.$inferSelect;
type ImageRow = typeof templateImages.$inferSelect;

/** The columns a template answer needs: never the uploaded file's bytes. */
const templateColumns = {
  id: templates.id,
  title: templates.title,
  content: templates.content,
  text: templates.text,
  listOrder: templates.listOrder,
};
type TemplateHead = { id: number; title: string; content: string | null; text: string | null; listOrder: number };

export function toTemplateImage(row: ImageRow): TemplateImage {
  return {
    id: row.id,
    template_id: row.templateId,
    mimetype: row.mimeType,
    filename: row.filename,
    data: row.data ? row.data.toString('base64') : '',
    width: row.width,
    height: row.height,
  };
}

/** Row and its images → API shape (reference §6.16; `images` null when there are none). */
export function toTemplate(row: TemplateHead, images: readonly ImageRow[]): Template {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    text: row.text,
    list_order: row.listOrder,
    images: images.length > 0 ? images.map(toTemplateImage) : null,
  };
}

export async function findTemplate(db: Executor, id: number): Promise<TemplateHead | undefined> {
  const [row] = await db.select(templateColumns).from(templates).where(eq(templates.id, id));
  return row;
}

/** Another template with this title, compared case-insensitively as the unique index does. */
export async function titleTaken(db: Executor, title: string, exceptId?: number): Promise<boolean> {
  const sameTitle = sql`lower(${templates.title}) = lower(${title})`;
  const [row] = await db
    .select({ id: templates.id })
    .from(templates)
    .where(exceptId === undefined ? sameTitle : and(sameTitle, ne(templates.id, exceptId)))
    .limit(1);
  return row !== undefined;
}

/** The images of several templates in one query, grouped by template id. */
export async function imagesOf(db: Executor, templateIds: readonly number[]): Promise<Map<number, ImageRow[]>> {
  const out = new Map<number, ImageRow[]>();
  if (templateIds.length === 0) return out;
  const rows = await db
    .select()
    .from(templateImages)
    .where(inArray(templateImages.templateId, [...templateIds]))
    .orderBy(asc(templateImages.id));
  for (const row of rows) {
    const list = out.get(row.templateId!) ?? [];
    list.push(row);
    out.set(row.templateId!, list);
  }
  return out;
}

export async function listTemplates(db: Executor, afterId: number, limit: number) {
  const rows = await db.select(templateColumns).from(templates).where(gt(templates.id, afterId)).orderBy(asc(templates.id)).limit(limit);
  const [total] = await db.select({ n: count() }).from(templates);
  return { rows, total: total?.n ?? 0 };
}

export async function insertTemplate(db: Executor, values: typeof templates.$inferInsert): Promise<TemplateHead> {
  const [row] = await db.insert(templates).values(values).returning(templateColumns);
  return row!;
}

export async function updateTemplate(db: Executor, id: number, values: Partial<typeof templates.$inferInsert>): Promise<TemplateHead | undefined> {
  const [row] = await db
    .update(templates)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(templates.id, id))
    .returning(templateColumns);
  return row;
}

export async function deleteTemplate(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(templates).where(eq(templates.id, id)).returning({ id: templates.id });
  return rows.length > 0;
}

/** Replaces a template's images with these, in one multi-row insert. */
export async function replaceImages(db: Executor, templateId: number, images: readonly ExtractedImage[]): Promise<ImageRow[]> {
  await db.delete(templateImages).where(eq(templateImages.templateId, templateId));
  if (images.length === 0) return [];
  return db
    .insert(templateImages)
    .values(images.map((i) => ({ templateId, ...i })))
    .returning()
    .then((rows) => rows.sort((a, b) => a.id - b.id));
}
