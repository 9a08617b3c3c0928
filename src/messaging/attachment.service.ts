import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError, ValidationError } from '../shared/errors.js';
import type { AttachmentStorage } from './attachment-storage.js';
import { TooLargeError } from './attachment-too-large.js';
import * as repo from './attachment.repository.js';
import type { Attachment } from './attachment.schemas.js';
import { asClientError, fieldText, type FormPart } from '../plugins/multipart-form.js';

export const CAMPAIGN_NOT_FOUND = 'Campaign not found.';
export const ATTACHMENT_NOT_FOUND = 'Attachment not found.';
const MAX_DESCRIPTION = 1000;

export async function requireCampaign(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.campaignExists(ctx.db, id))) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
}

/**
 * Why a file name cannot be stored as given, or null. The name is written into mail and download headers, and
 * a store keyed by name must never be steered elsewhere: no separators, no control characters, no dot names.
 */
export function fileNameProblem(name: string): string | null {
  if (name.trim() === '') return 'The file name should not be blank.';
  if (/[/\\]/.test(name)) return 'The file name must not contain path separators.';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return 'The file name must not contain control characters.';
  if (name === '.' || name === '..') return 'The file name is not valid.';
  if (name.length > 255) return 'The file name is too long. It should have 255 characters or less.';
  return null;
}

/** A client-declared MIME type as stored: `type/subtype` in lower case, anything else `application/octet-stream`. */
function cleanMimeType(value: string | undefined): string {
  const type = (value ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return /^[a-z0-9][\w.+-]*\/[a-z0-9][\w.+-]*$/.test(type) && type.length <= 127 ? type : 'application/octet-stream';
}

/**
 * Stores the upload (multipart `file`, optional `description`): bytes streamed into storage while hashed, then
 * the row. The file is written before the row, and the row refers to it under the hash lock, so a concurrent
 * delete of the same bytes cannot leave the new row without its file unnoticed.
 */
export async function uploadAttachment(
  ctx: AppContext,
  storage: AttachmentStorage,
  campaignId: number,
  parts: AsyncIterable<FormPart>,
): Promise<Attachment> {
  const limit = ctx.config.attachmentMaxSize;
  let stored: { hash: string; size: number; filename: string; mimeType: string } | null = null;
  let description: string | null = null;
  try {
    try {
      for await (const part of parts) {
        if (part.type === 'field') {
          if (part.fieldname === 'description' && description === null) description = fieldText(part);
          continue;
        }
        if (part.fieldname !== 'file' || stored) {
          part.file.resume();
          continue;
        }
        const problem = fileNameProblem(part.filename);
        if (problem) {
          part.file.resume();
          throw ValidationError.field('file', problem);
        }
        const { hash, size } = await storage.put(part.file as Readable, { maxBytes: limit });
        stored = { hash, size, filename: part.filename, mimeType: cleanMimeType(part.mimetype) };
      }
    } catch (err) {
      if (err instanceof TooLargeError) throw new PayloadTooLargeError(`The file is larger than the limit of ${limit} bytes.`);
      throw asClientError(err, limit);
    }
    if (!stored) throw ValidationError.field('file', 'This value should not be blank.');
    if (stored.size === 0) throw ValidationError.field('file', 'The file is empty.');
    if (description !== null && description.length > MAX_DESCRIPTION) {
      throw ValidationError.field('description', `This value is too long. It should have ${MAX_DESCRIPTION} characters or less.`);
    }
    const file = stored;
    const row = await ctx.db.transaction(async (tx) => {
      await repo.lockHash(tx, file.hash);
      if (!(await storage.exists(file.hash, tx))) {
        throw new ConflictError('The file was removed while it was uploaded (another attachment with the same bytes was deleted). Send it again.');
      }
      return repo.insertAttachment(tx, {
        campaignId,
        filename: file.filename,
        mimeType: file.mimeType,
        size: file.size,
        description: description === null || description.trim() === '' ? null : description,
        contentHash: file.hash,
      });
    });
    return repo.toAttachment(row);
  } catch (err) {
    if (stored) await removeIfUnused(ctx, storage, stored.hash);
    throw err;
  }
}

export async function listAttachments(ctx: AppContext, campaignId: number): Promise<Attachment[]> {
  await requireCampaign(ctx, campaignId);
  return (await repo.listCampaignAttachments(ctx.db, campaignId)).map(repo.toAttachment);
}

/** Deletes the row; the stored bytes go too when no other attachment uses them. */
export async function deleteAttachment(ctx: AppContext, storage: AttachmentStorage, campaignId: number, id: number): Promise<void> {
  await requireCampaign(ctx, campaignId);
  const row = await repo.findAttachment(ctx.db, id);
  if (!row || row.campaignId !== campaignId) throw new NotFoundError(ATTACHMENT_NOT_FOUND);
  await ctx.db.transaction(async (tx) => {
    await repo.lockHash(tx, row.contentHash);
    await repo.deleteAttachment(tx, id);
    if (!(await repo.hashInUse(tx, row.contentHash))) await storage.remove(row.contentHash, tx);
  });
}

/**
 * Drops every attachment of a campaign and the stored files nothing else uses. The campaign delete calls this
 * first: the foreign-key cascade alone would remove the rows but leave their files behind.
 */
export async function forgetCampaignAttachments(ctx: AppContext, storage: AttachmentStorage, campaignId: number): Promise<void> {
  const rows = await repo.listCampaignAttachments(ctx.db, campaignId);
  for (const row of rows) {
    await ctx.db.transaction(async (tx) => {
      await repo.lockHash(tx, row.contentHash);
      await repo.deleteAttachment(tx, row.id);
      if (!(await repo.hashInUse(tx, row.contentHash))) await storage.remove(row.contentHash, tx);
    });
  }
}

async function removeIfUnused(ctx: AppContext, storage: AttachmentStorage, hash: string): Promise<void> {
  try {
    await ctx.db.transaction(async (tx) => {
      await repo.lockHash(tx, hash);
      if (!(await repo.hashInUse(tx, hash))) await storage.remove(hash, tx);
    });
  } catch (err) {
    ctx.log.warn({ err }, 'could not remove an unused attachment file');
  }
}

export interface Download {
  row: repo.AttachmentRow;
  stream: Readable;
}

/** Spec row 18: attachment (404) → subscriber by uid (404) → was sent the campaign (403) → file (404). */
export async function openDownload(
  ctx: AppContext,
  storage: AttachmentStorage,
  id: number,
  uid: string | undefined,
  chunkSize: number,
): Promise<Download> {
  const row = await repo.findAttachment(ctx.db, id);
  if (!row) throw new NotFoundError(ATTACHMENT_NOT_FOUND);
  const subscriberId = uid && uid.length <= 64 ? await repo.findSubscriberIdByUid(ctx.db, uid) : undefined;
  if (subscriberId === undefined) throw new NotFoundError('Subscriber not found.');
  if (!(await repo.wasSent(ctx.db, row.campaignId, subscriberId))) throw new ForbiddenError('Access denied.');
  const stream = await storage.open(row.contentHash, { chunkSize });
  if (!stream) throw new NotFoundError('Attachment file not available');
  return { row, stream };
}

/** `Content-Disposition` per RFC 6266: an ASCII `filename` for old clients and the exact name in `filename*`. */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** The stored type; text gets an explicit charset, as phpList sends it. */
export function contentType(mimeType: string): string {
  return mimeType.startsWith('text/') ? `${mimeType}; charset=UTF-8` : mimeType;
}
