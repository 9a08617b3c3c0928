import { CRLF, encodeBase64Lines, headerWithParameters, mimeParameter } from './mime.js';
import { markSmtpSafe } from '../smtp/data.js';

/*
 * The MIME structure of a campaign's mails, built once with fixed boundaries:
 *
 *   multipart/mixed                      (only with attachments)
 *     multipart/related                  (only with inline template images; HTML mails only)
 *       multipart/alternative            (HTML mails)
 *         text/plain; quoted-printable   ← per recipient
 *         text/html;  quoted-printable   ← per recipient
 *       image/* inline, base64
 *     attachments, base64
 *
 * A recipient's mail is `head + text [+ middle + html] + tail`; only the two bodies change. The boundaries cannot
 * occur inside a part: they contain `=_`, which quoted-printable always writes as `=3D_` and base64 never writes.
 */

/** A part whose bytes are the same for every recipient: an attachment or an inline image. */
export interface StaticPart {
  readonly filename: string;
  readonly mimeType: string;
  readonly data: Buffer;
  /** Inline images: the Content-ID the HTML refers to as `cid:`, without angle brackets. */
  readonly contentId?: string;
}

export interface Skeleton {
  /** The Content-Type header(s) of the message, the blank line, and everything up to the text body. */
  readonly head: string;
  /** Between the text body and the HTML body; null for text-only mails. */
  readonly middle: string | null;
  /** After the last body: closing boundaries, inline images, attachments. */
  readonly tail: Buffer;
}

const TEXT_HEADERS = `Content-Type: text/plain; charset=utf-8${CRLF}Content-Transfer-Encoding: quoted-printable${CRLF}`;
const HTML_HEADERS = `Content-Type: text/html; charset=utf-8${CRLF}Content-Transfer-Encoding: quoted-printable${CRLF}`;
const MIME_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;

function multipartHeader(subtype: string, boundary: string): string {
  return `Content-Type: multipart/${subtype}; boundary="${boundary}"${CRLF}`;
}

/** One static part with its opening delimiter, ending with its base64 (the CRLF after it opens the next delimiter). */
function staticPart(boundary: string, part: StaticPart): string {
  const type = MIME_TYPE.test(part.mimeType) ? part.mimeType.toLowerCase() : 'application/octet-stream';
  const headers = [
    headerWithParameters('Content-Type', type, mimeParameter('name', part.filename)),
    'Content-Transfer-Encoding: base64',
    ...(part.contentId ? [`Content-ID: <${part.contentId}>`] : []),
    headerWithParameters('Content-Disposition', part.contentId ? 'inline' : 'attachment', mimeParameter('filename', part.filename)),
  ];
  return `--${boundary}${CRLF}${headers.join(CRLF)}${CRLF}${CRLF}${encodeBase64Lines(part.data)}${CRLF}`;
}

function staticParts(boundary: string, parts: readonly StaticPart[]): string {
  return parts.map((p) => staticPart(boundary, p)).join('') + `--${boundary}--${CRLF}`;
}

export interface Boundaries {
  readonly mixed: string;
  readonly related: string;
  readonly alternative: string;
}

/** The skeleton of the mails with an HTML part. */
export function htmlSkeleton(b: Boundaries, inline: readonly StaticPart[], attachments: readonly StaticPart[]): Skeleton {
  let head = `${multipartHeader('alternative', b.alternative)}${CRLF}--${b.alternative}${CRLF}${TEXT_HEADERS}${CRLF}`;
  const middle = `${CRLF}--${b.alternative}${CRLF}${HTML_HEADERS}${CRLF}`;
  let tail = `${CRLF}--${b.alternative}--${CRLF}`;
  if (inline.length > 0) {
    head = `${multipartHeader('related', b.related)}${CRLF}--${b.related}${CRLF}${head}`;
    tail += staticParts(b.related, inline);
  }
  if (attachments.length > 0) {
    head = `${multipartHeader('mixed', b.mixed)}${CRLF}--${b.mixed}${CRLF}${head}`;
    tail += staticParts(b.mixed, attachments);
  }
  return { head, middle, tail: markSmtpSafe(Buffer.from(tail, 'latin1')) };
}

/** The skeleton of text-only mails (no inline images: there is no HTML to show them). */
export function textSkeleton(b: Boundaries, attachments: readonly StaticPart[]): Skeleton {
  // The body ends with a soft line break (placeholders.ts), which also ends the message.
  if (attachments.length === 0) return { head: `${TEXT_HEADERS}${CRLF}`, middle: null, tail: Buffer.alloc(0) };
  return {
    head: `${multipartHeader('mixed', b.mixed)}${CRLF}--${b.mixed}${CRLF}${TEXT_HEADERS}${CRLF}`,
    middle: null,
    tail: markSmtpSafe(Buffer.from(CRLF + staticParts(b.mixed, attachments), 'latin1')),
  };
}
