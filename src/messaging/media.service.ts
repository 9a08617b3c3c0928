import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { HttpError, NotFoundError, PayloadTooLargeError, ValidationError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { asClientError, fieldText, type FormPart } from '../plugins/multipart-form.js';
import { readImage } from './media-image.js';
import { detectImageType, looksLikeSvg, mediaFilename, type MediaType } from './media-type.js';
import * as repo from './media.repository.js';
import type { Media, MediaListQuery, MediaUse } from './media.schemas.js';

export const MEDIA_NOT_FOUND = 'Image not found.';
const MAX_ALT = 500;
const NOT_AN_IMAGE = 'The file is not a PNG, JPEG, GIF or WebP image (its type is read from its bytes, not its name).';
const SVG_REFUSED = 'SVG images are not accepted: they can carry scripts, and most mail clients do not show them. Upload a PNG, JPEG, GIF or WebP.';

function toMedia(ctx: AppContext, row: repo.MediaRow, uses: MediaUse[]): Media {
  const base = `${ctx.config.publicUrl}/media/${row.key}`;
  return {
    id: row.id,
    url: `${base}/${row.filename}`,
    thumbnail_url: `${base}/thumbnail`,
    filename: row.filename,
    mime_type: row.mimeType as MediaType,
    size: row.size,
    width: row.width,
    height: row.height,
    alt: row.alt,
    used_by: uses,
    created_at: toAtom(row.createdAt)!,
  };
}

const usesByKey = (uses: repo.MediaUse[]) => {
  const byKey = new Map<string, MediaUse[]>();
  for (const { key, ...use } of uses) byKey.set(key, [...(byKey.get(key) ?? []), use]);
  return byKey;
};

/** The file's bytes, at most `limit` of them (413 past it, read no further). */
async function readLimited(stream: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLargeError(`The image is larger than the limit of ${limit} bytes (MEDIA_MAX_SIZE).`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Stores an upload (multipart `file`, optional `alt`): the whole file is read into memory (at most MEDIA_MAX_SIZE,
 * 5 MB by default), as the thumbnail needs it decoded anyway; its type is detected from the bytes; the image is
 * decoded once to measure it and make the thumbnail; then row and bytes are written in one transaction.
 */
export async function uploadMedia(ctx: AppContext, uploadedBy: number, parts: AsyncIterable<FormPart>): Promise<Media> {
  const limit = ctx.config.mediaMaxSize;
  let file: { bytes: Buffer; filename: string } | null = null;
  let alt: string | null = null;
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.fieldname === 'alt' && alt === null) alt = fieldText(part);
        continue;
      }
      if (part.fieldname !== 'file' || file) {
        part.file.resume();
        continue;
      }
      file = { bytes: await readLimited(part.file, limit), filename: part.filename };
      // busboy stops at its own limit (one byte over ours) without an error: the flag says the file was cut.
      if (part.file.truncated) throw new PayloadTooLargeError(`The image is larger than the limit of ${limit} bytes (MEDIA_MAX_SIZE).`);
    }
  } catch (err) {
    throw err instanceof HttpError ? err : asClientError(err, limit);
  }
  if (!file) throw ValidationError.field('file', 'This value should not be blank.');
  if (file.bytes.length === 0) throw ValidationError.field('file', 'The file is empty.');
  if (alt !== null && alt.length > MAX_ALT) {
    throw ValidationError.field('alt', `This value is too long. It should have ${MAX_ALT} characters or less.`);
  }
  const type = detectImageType(file.bytes);
  if (!type) throw new HttpError(415, looksLikeSvg(file.bytes) ? SVG_REFUSED : NOT_AN_IMAGE);
  const image = await readImage(file.bytes, type);
  const row = await repo.insertMedia(
    ctx.db,
    {
      key: randomBytes(16).toString('base64url'),
      filename: mediaFilename(file.filename, type),
      mimeType: type,
      size: file.bytes.length,
      width: image.width,
      height: image.height,
      alt: (alt ?? '').trim(),
      contentHash: createHash('sha256').update(file.bytes).digest('hex'),
      thumbnail: image.thumbnail,
      uploadedBy,
    },
    file.bytes,
  );
  return toMedia(ctx, row, []);
}

/** A page of the library, newest first, each image with what uses it. */
export async function listMedia(ctx: AppContext, query: MediaListQuery) {
  const limit = query.limit ?? 50;
  const { rows, total } = await repo.listMedia(ctx.db, query.before_id ?? 0, limit);
  const uses = usesByKey(
    await repo.usesOf(
      ctx.db,
      rows.map((r) => r.key),
    ),
  );
  const last = rows[rows.length - 1];
  return {
    items: rows.map((row) => toMedia(ctx, row, uses.get(row.key) ?? [])),
    pagination: { total, limit, has_more: rows.length === limit, next_cursor: last ? last.id : null },
  };
}

export async function getMedia(ctx: AppContext, id: number): Promise<Media> {
  const row = await repo.findMedia(ctx.db, id);
  if (!row) throw new NotFoundError(MEDIA_NOT_FOUND);
  return toMedia(ctx, row, usesByKey(await repo.usesOf(ctx.db, [row.key])).get(row.key) ?? []);
}

/**
 * Deletes an image no campaign or template references, and answers the empty list; one in use is kept and its
 * users are answered. A sent campaign counts: its mail in people's mailboxes still loads the image from here.
 */
export async function deleteMedia(ctx: AppContext, id: number): Promise<MediaUse[]> {
  const row = await repo.findMedia(ctx.db, id);
  if (!row) throw new NotFoundError(MEDIA_NOT_FOUND);
  const uses = usesByKey(await repo.usesOf(ctx.db, [row.key])).get(row.key) ?? [];
  if (uses.length > 0) return uses;
  if (!(await repo.deleteMedia(ctx.db, id))) throw new NotFoundError(MEDIA_NOT_FOUND);
  return [];
}

/** "Used by campaign 3 “News”, template 1 “Plain”": the 409's message. */
export function inUseMessage(uses: readonly MediaUse[]): string {
  const names = uses.map((u) => `${u.kind} ${u.id} “${u.name}”`).join(', ');
  return `The image is used by ${names}; remove it from them before deleting it.`;
}

/** The image at a public address: found by key, and only under its own name. */
export async function openPublicMedia(ctx: AppContext, key: string, filename: string) {
  const row = await repo.findMediaByKey(ctx.db, key);
  if (!row || row.filename !== filename) throw new NotFoundError(MEDIA_NOT_FOUND);
  const db = ctx.db;
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq++) {
      const data = await repo.mediaChunk(db, row!.id, seq);
      if (!data) return;
      yield data;
    }
  }
  return { row, stream: () => Readable.from(chunks(), { objectMode: false }) };
}

export async function publicThumbnail(ctx: AppContext, key: string) {
  const found = await repo.thumbnailOf(ctx.db, key);
  if (!found) throw new NotFoundError(MEDIA_NOT_FOUND);
  return found;
}
