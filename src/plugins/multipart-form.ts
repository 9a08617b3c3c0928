import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, HttpError, PayloadTooLargeError } from '../shared/errors.js';

/*
 * Reading multipart/form-data bodies (@fastify/multipart, registered per plugin). Parser failures that are the
 * client's fault (a cut-off body, a missing boundary) arrive as plain errors from busboy; they become a 400 here
 * instead of reaching the error handler as a 500.
 */

export type FormPart = MultipartFile | MultipartValue;

/**
 * The request's parts, or 400 when the body is not well-formed multipart. `asError` turns a parser failure into
 * the error to answer with (a route may word its own 413).
 */
export async function* formParts(request: FastifyRequest, asError: (err: unknown) => Error = (err) => asClientError(err)): AsyncGenerator<FormPart> {
  let iterator: AsyncIterator<FormPart>;
  try {
    iterator = request.parts()[Symbol.asyncIterator]();
  } catch (err) {
    throw asError(err);
  }
  for (;;) {
    let next: IteratorResult<FormPart>;
    try {
      next = await iterator.next();
    } catch (err) {
      throw asError(err);
    }
    if (next.done) return;
    yield next.value;
  }
}

/** The most of an unread body that is read and thrown away after an early answer; a larger rest closes the connection. */
export const DRAIN_LIMIT = 1024 * 1024;

/**
 * For an `onSend` hook of upload routes. A route that answers before it has read the whole upload (a refusal
 * half-way through the form) leaves the rest of the body on the connection, and the client's next request on that
 * keep-alive connection waits behind it until the keep-alive timeout. So the rest is read and discarded when the
 * body announces at most `limit` bytes (the connection stays usable), and otherwise the answer carries
 * `Connection: close` and Node closes the connection once it is sent.
 */
export function releaseUnreadBody(request: FastifyRequest, reply: FastifyReply, limit = DRAIN_LIMIT): void {
  const raw = request.raw;
  if (raw.complete || raw.readableEnded) return;
  const length = Number(raw.headers['content-length']);
  if (!(length <= limit)) reply.header('connection', 'close');
  // Detach the multipart parser (it would buffer what nobody reads) and let the bytes flow away.
  raw.unpipe();
  raw.resume();
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
