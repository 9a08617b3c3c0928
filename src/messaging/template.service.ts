import type { AppContext } from '../context.js';
import { ConflictError, NotFoundError, ValidationError, driverCode } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import { DEFAULT_TEXT, findDefaultTemplate, readDefaultTemplate } from './template-defaults.js';
import { extractImages, imagesNotFull, linksNotFull, scanTemplateHtml } from './template-html.js';
import { checkExternalImages } from './template-image-check.js';
import * as repo from './template.repository.js';
import { MAX_TEMPLATE_TEXT, type Template, type TemplateBody, type TemplateCheckBody } from './template.schemas.js';

export const TEMPLATE_NOT_FOUND = 'Template not found.';
export const TITLE_TAKEN = 'Template title already exists.';
const PLACEHOLDER = '[CONTENT]';

export async function requireTemplate(ctx: AppContext, id: number) {
  const row = await repo.findTemplate(ctx.db, id);
  if (!row) throw new NotFoundError(TEMPLATE_NOT_FOUND);
  return row;
}

export async function listTemplates(ctx: AppContext, afterId: number, limit: number) {
  const { rows, total } = await repo.listTemplates(ctx.db, afterId, limit);
  const images = await repo.imagesOf(
    ctx.db,
    rows.map((r) => r.id),
  );
  return toPage(
    rows.map((r) => repo.toTemplate(r, images.get(r.id) ?? [])),
    total,
    limit,
    (t) => t.id,
  );
}

export async function getTemplate(ctx: AppContext, id: number): Promise<Template> {
  const row = await requireTemplate(ctx, id);
  const images = await repo.imagesOf(ctx.db, [id]);
  return repo.toTemplate(row, images.get(id) ?? []);
}

/**
 * As phpList core: an uploaded file's contents become the template's content (in place of a `content` field), held
 * to the same rules, which then name `file`; the bytes are kept as the template's file too. An empty file part (a
 * form whose file input was left empty) counts as none.
 */
export async function createTemplate(ctx: AppContext, body: TemplateBody, upload: Buffer | null): Promise<Template> {
  const title = body.title.trim();
  const file = upload && upload.length > 0 ? upload : null;
  const content = file ? fileText(file) : (body.content ?? null);
  await validate(ctx, body, content, body.text ?? null, file ? 'file' : 'content');
  if (await repo.titleTaken(ctx.db, title)) throw new ConflictError(TITLE_TAKEN);
  return write(ctx, null, { title, content, text: body.text ?? null, listOrder: body.list_order ?? 0, file });
}

/**
 * phpList's PUT: the title is replaced; content, text and list order only when sent (not null); an uploaded file
 * replaces the content (and the file), as on create.
 */
export async function updateTemplate(ctx: AppContext, id: number, body: TemplateBody, upload: Buffer | null): Promise<Template> {
  const current = await requireTemplate(ctx, id);
  const title = body.title.trim();
  const file = upload && upload.length > 0 ? upload : null;
  const content = file ? fileText(file) : (body.content ?? current.content);
  const text = body.text ?? current.text;
  await validate(ctx, body, content, text, file ? 'file' : 'content');
  if (await repo.titleTaken(ctx.db, title, id)) throw new ConflictError(TITLE_TAKEN);
  return write(ctx, id, {
    title,
    content,
    text,
    listOrder: body.list_order ?? current.listOrder,
    ...(file ? { file } : {}),
  });
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The uploaded file as template HTML: UTF-8 (a BOM is dropped), no NUL, no longer than a `content` field may be. */
function fileText(file: Buffer): string {
  let text: string;
  try {
    text = UTF8.decode(file);
  } catch {
    throw ValidationError.field('file', 'The file is not UTF-8 text.');
  }
  if (text.includes('\u0000')) throw ValidationError.field('file', 'The file contains a NUL character; it must be HTML text.');
  if (text.length > MAX_TEMPLATE_TEXT) {
    throw ValidationError.field('file', `The file is too long: ${text.length} characters (at most ${MAX_TEMPLATE_TEXT}).`);
  }
  return text;
}

export async function deleteTemplate(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteTemplate(ctx.db, id))) throw new NotFoundError(TEMPLATE_NOT_FOUND);
}

export async function createFromDefault(ctx: AppContext, key: string): Promise<Template> {
  const builtIn = findDefaultTemplate(key);
  if (!builtIn) throw new NotFoundError('Default template not found.');
  if (await repo.titleTaken(ctx.db, builtIn.name)) throw new ConflictError(TITLE_TAKEN);
  const content = await readDefaultTemplate(builtIn);
  return write(ctx, null, { title: builtIn.name, content, text: DEFAULT_TEXT, listOrder: 0, file: null });
}

interface TemplateValues {
  title: string;
  content: string | null;
  text: string | null;
  listOrder: number;
  file?: Buffer | null;
}

/** Template row and its re-extracted images in one transaction (reference §5.15). */
async function write(ctx: AppContext, id: number | null, values: TemplateValues): Promise<Template> {
  const images = extractImages(values.content ? scanTemplateHtml(values.content).images : []);
  try {
    return await ctx.db.transaction(async (tx) => {
      const row = id === null ? await repo.insertTemplate(tx, values) : await repo.updateTemplate(tx, id, values);
      if (!row) throw new NotFoundError(TEMPLATE_NOT_FOUND);
      return repo.toTemplate(row, await repo.replaceImages(tx, row.id, images));
    });
  } catch (err) {
    // Two writers with one title at once: the unique index settles it.
    if (isUniqueViolation(err)) throw new ConflictError(TITLE_TAKEN);
    throw err;
  }
}

/**
 * The rules and checks a save would run, on HTML and text that are not saved (an edit in the console, before or
 * instead of saving): nothing is written. A failure is the same 422 the save would answer.
 */
export async function checkTemplate(ctx: AppContext, body: TemplateCheckBody): Promise<{ ok: true }> {
  await validate(ctx, body, body.content ?? null, body.text ?? null, 'content');
  return { ok: true };
}

/**
 * The placeholder rule and the three optional checks, every failure reported at once (422). Failures of the
 * content are reported at `contentField`: `file` when the content is the uploaded file's.
 */
async function validate(
  ctx: AppContext,
  body: Pick<TemplateBody, 'check_links' | 'check_images' | 'check_external_images'>,
  content: string | null,
  text: string | null,
  contentField: 'content' | 'file',
): Promise<void> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (content && !content.includes(PLACEHOLDER)) {
    add(contentField, `The ${contentField} must include at least one "${PLACEHOLDER}" placeholder.`);
  }
  if (text && !text.includes(PLACEHOLDER)) add('text', `The text must include at least one "${PLACEHOLDER}" placeholder.`);
  if (content && (body.check_links || body.check_images || body.check_external_images)) {
    const refs = scanTemplateHtml(content);
    if (body.check_links) {
      const bad = linksNotFull(refs.links);
      if (bad.length > 0) add(contentField, `Not full URLs: ${bad.join(', ')}`);
    }
    if (body.check_images) {
      for (const src of imagesNotFull(refs.images)) add(contentField, `Image "${shorten(src)}" is not a full URL.`);
    }
    // The network is asked only about a template that is otherwise valid.
    if (body.check_external_images && Object.keys(errors).length === 0) {
      const failures = await checkExternalImages(
        refs.images.map((i) => i.src),
        ctx.config.imageCheckTimeoutMs,
        { allowLoopback: ctx.config.imageCheckAllowLoopback },
      );
      for (const message of failures) add(contentField, message);
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** A `data:` source can be megabytes; an error message quotes its start. */
function shorten(src: string): string {
  return src.length > 100 ? `${src.slice(0, 100)}…` : src;
}

function isUniqueViolation(err: unknown): boolean {
  return driverCode(err) === '23505';
}
