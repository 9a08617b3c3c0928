import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { BadRequestError, HttpError, PayloadTooLargeError } from '../shared/errors.js';

/*
 * Reading multipart/form-data bodies (@fastify/multipart, registered per plugin). Parser failures that are the
 * client's fault (a cut-off body, a missing boundary) arrive as plain errors from busboy; they become a 400 here
 * instead of reaching the error handler as a 500.
 */

export type FormPart = MultipartFile | MultipartValue;

/** The request's parts, or 400 when the body is not well-formed multipart. */
export async function* formParts(request: FastifyRequest): AsyncGenerator<FormPart> {
  let iterator: AsyncIterator<FormPart>;
  try {
    iterator = request.parts()[Symbol.asyncIterator]();
  } catch (err) {
    throw asClientError(err);
  }
  for (;;) {
    let next: IteratorResult<FormPart>;
    try {
      next = await iterator.next();
    } catch (err) {
      throw asClientError(err);
    }
    if (next.done) return;
    yield next.value;
  }
}

/** A multipart failure as the typed error to answer with. */
export function asClientError(err: unknown, limit?: number): Error {
  if (err instanceof HttpError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new PayloadTooLargeError(`The file is larger than the limit of ${limit ?? 'the upload limit'} bytes.`);
  }
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new PayloadTooLargeError('The form has too many parts.');
  }
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return new HttpError(status, (err as Error).message);
  return new BadRequestError(`Malformed multipart body: ${(err as Error).message ?? 'unreadable'}`);
}

/** The value of a text field; the first one when repeated. */
export function fieldText(part: MultipartValue): string {
  return typeof part.value === 'string' ? part.value : String(part.value);
}

/** A form's boolean as JSON would carry it; anything unrecognised stays text, so validation names the field. */
export function formBoolean(value: string): boolean | string {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(v)) return true;
  if (['0', 'false', 'off', 'no', ''].includes(v)) return false;
  return value;
}

/** A form's integer as JSON would carry it; non-digits stay text (422 on the field); empty is null. */
export function formInteger(value: string): number | string | null {
  const v = value.trim();
  if (v === '') return null;
  return /^-?\d{1,10}$/.test(v) ? Number(v) : value;
}
