/*
 * A small reader of MIME messages (RFC 5322 header, RFC 2045–2047 bodies), just enough to take delivery status
 * notifications and abuse reports apart: headers, multipart bodies, transfer encodings and charsets. It works on a
 * "binary string" (one char per byte, latin1) so that boundaries and offsets are byte-exact, and bounds its own
 * work (depth, part count), since what it reads comes from anyone who can send mail.
 */

export interface HeaderField {
  /** Lower-cased field name. */
  readonly name: string;
  /** Unfolded value, trimmed; still in the message's bytes (see `decodeWords` for display). */
  readonly value: string;
}

export class Headers {
  constructor(readonly fields: readonly HeaderField[]) {}

  /** The first value of a field (case-insensitive name), or null. */
  get(name: string): string | null {
    const lower = name.toLowerCase();
    return this.fields.find((f) => f.name === lower)?.value ?? null;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

export interface MimePart {
  readonly headers: Headers;
  /** `type/subtype`, lower-cased; `text/plain` when absent. */
  readonly contentType: string;
  readonly params: Readonly<Record<string, string>>;
  /** Raw body (binary string), still transfer-encoded. */
  readonly body: string;
  /** Sub-parts of a multipart body; a message/rfc822 part has its message as its only child. */
  readonly children: readonly MimePart[];
}

export class MessageFormatError extends Error {}

const MAX_DEPTH = 8;
const MAX_PARTS = 200;
/** A header field name as mail actually uses them (stricter than RFC 5322's ftext, so JSON or prose is refused). */
const FIELD = /^([A-Za-z0-9][A-Za-z0-9_.-]*)[ \t]*:(.*)$/;

/** Splits a header block from its body at the first empty line. */
function splitHeader(text: string): { head: string; body: string } {
  const match = /\r?\n\r?\n/.exec(text);
  if (!match) return { head: text, body: '' };
  return { head: text.slice(0, match.index), body: text.slice(match.index + match[0].length) };
}

/**
 * Parses a header block. `strict`: every line must be a field or a continuation, and the first a field (what makes
 * a body "an RFC 5322 message" for the inbound endpoint); otherwise odd lines are skipped.
 */
export function parseHeaders(head: string, strict = false): Headers {
  const fields: { name: string; value: string }[] = [];
  const lines = head.split(/\r?\n/);
  // An mbox "From " separator line may precede the header.
  if (lines[0]?.startsWith('From ') && !FIELD.test(lines[0])) lines.shift();
  lines.forEach((line, i) => {
    if (line === '') return;
    if (/^[ \t]/.test(line)) {
      const last = fields.at(-1);
      if (last) last.value += ` ${line.trim()}`;
      else if (strict) throw new MessageFormatError('The message starts with an indented line, not a header field.');
      return;
    }
    const match = FIELD.exec(line);
    if (!match) {
      if (strict) throw new MessageFormatError(`Line ${i + 1} of the message header is not a header field ("Name: value").`);
      return;
    }
    fields.push({ name: match[1]!.toLowerCase(), value: match[2]!.trim() });
  });
  return new Headers(fields);
}

/** `type/subtype; a=b; c="d"` → type and parameters (names lower-cased; RFC 2231 `name*` taken as plain). */
export function parseContentType(value: string | null): { type: string; params: Record<string, string> } {
  if (!value) return { type: 'text/plain', params: {} };
  const semi = value.indexOf(';');
  const type = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase() || 'text/plain';
  const params: Record<string, string> = {};
  const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const name = m[1]!.toLowerCase().replace(/\*(\d+\*?)?$/, '');
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
    params[name] = name in params ? params[name] + raw : raw;
  }
  return { type, params };
}

/** Parses a whole message (or an embedded one) into its part tree. */
export function parseMessage(text: string, strict = false): MimePart {
  let parts = 0;
  const walk = (chunk: string, depth: number, defaultType: string): MimePart => {
    if (++parts > MAX_PARTS) throw new MessageFormatError(`The message has more than ${MAX_PARTS} MIME parts.`);
    const { head, body } = splitHeader(chunk);
    const headers = parseHeaders(head, strict && depth === 0);
    const { type, params } = parseContentType(headers.get('content-type') ?? defaultType);
    let children: MimePart[] = [];
    if (depth < MAX_DEPTH && type.startsWith('multipart/') && params.boundary) {
      const childDefault = type === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
      children = splitMultipart(body, params.boundary).map((p) => walk(p, depth + 1, childDefault));
    } else if (depth < MAX_DEPTH && (type === 'message/rfc822' || type === 'message/global')) {
      const inner = decodeBody(body, headers.get('content-transfer-encoding'));
      children = [walk(inner.toString('latin1'), depth + 1, 'text/plain')];
    }
    return { headers, contentType: type, params, body, children };
  };
  return walk(text, 0, 'text/plain');
}

/** The body parts between `--boundary` lines (preamble and epilogue dropped). */
function splitMultipart(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let start = -1;
  let pos = 0;
  while (pos <= body.length) {
    const next = body.indexOf('\n', pos);
    const end = next < 0 ? body.length : next;
    const line = body.slice(pos, end).replace(/\r$/, '');
    if (line.startsWith(delimiter)) {
      const rest = line.slice(delimiter.length);
      const closing = rest.startsWith('--');
      if (/^\s*$/.test(closing ? rest.slice(2) : rest)) {
        // The CRLF before a delimiter belongs to the delimiter (RFC 2046 §5.1.1).
        if (start >= 0) parts.push(body.slice(start, pos).replace(/\r?\n$/, ''));
        if (closing) return parts;
        start = end + 1;
      }
    }
    if (next < 0) break;
    pos = next + 1;
  }
  // No closing delimiter (a truncated report): keep what the last part had.
  if (start >= 0 && start <= body.length) parts.push(body.slice(start));
  return parts;
}

/** Undoes a Content-Transfer-Encoding: bytes. */
export function decodeBody(body: string, encoding: string | null): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return Buffer.from(body, 'latin1');
  }
}

function decodeQuotedPrintable(body: string): Buffer {
  const text = body.replace(/[ \t]+(\r?\n)/g, '$1').replace(/=\r?\n/g, '');
  const bytes = Buffer.alloc(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes[n++] = parseInt(text.slice(i + 1, i + 3), 16);
      i += 2;
    } else {
      bytes[n++] = text.charCodeAt(i) & 0xff;
    }
  }
  return bytes.subarray(0, n);
}

/** Bytes in a charset → string; unknown charsets read as UTF-8 (with replacement characters). */
export function decodeCharset(bytes: Buffer, charset: string | undefined): string {
  const label = (charset ?? 'utf-8').trim().toLowerCase();
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** A leaf part's content as text (transfer encoding and charset undone). */
export function partText(part: MimePart): string {
  return decodeCharset(decodeBody(part.body, part.headers.get('content-transfer-encoding')), part.params.charset);
}

/** RFC 2047 encoded words (`=?utf-8?B?…?=`) in a header value → text. */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g, (_all, charset: string, enc: string, data: string) => {
      const bytes =
        enc.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64')
          : decodeQuotedPrintable(data.replace(/_/g, ' '));
      return decodeCharset(bytes, charset.replace(/\*.*$/, ''));
    });
}

/** Every part of the tree, depth first, the root included. */
export function* walkParts(part: MimePart): Generator<MimePart> {
  yield part;
  for (const child of part.children) yield* walkParts(child);
}
