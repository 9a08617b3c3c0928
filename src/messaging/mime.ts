/*
 * A small reader of MIME messages (RFC 5322 header, RFC 2045–2047 bodies), just enough to take delivery status
 * notifications and abuse reports apart: headers, multipart bodies, transfer encodings and charsets. It works on a
 * "binary string" (one char per byte, latin1) so that boundaries and offsets are byte-exact, and bounds its own
 * work (depth, part count, time), since what it reads comes from anyone who can send mail.
 *
 * Every pass over outside text is linear in its length: scans with indexOf, or regular expressions without a
 * quantified run that can be retried from each of its own positions (`/[ \t]+\n/` on a million spaces is quadratic).
 * test/messaging/bounce-pathological.test.ts feeds BOUNCE_MAX_SIZE bytes of the worst inputs known for each.
 */

export interface HeaderField {
  /** Lower-cased field name. */
  readonly name: string;
  /** Unfolded value, trimmed; still in the message's bytes (see `decodeWords` for display). */
  readonly value: string;
}

export class Headers {
  /** The first value of each name, made on the first look-up of a long header (each is looked up several times). */
  private first: Map<string, string> | null = null;

  constructor(readonly fields: readonly HeaderField[]) {}

  /** The first value of a field (case-insensitive name), or null. */
  get(name: string): string | null {
    const lower = name.toLowerCase();
    if (this.fields.length <= 32) return this.fields.find((f) => f.name === lower)?.value ?? null;
    if (!this.first) {
      this.first = new Map();
      for (const f of this.fields) if (!this.first.has(f.name)) this.first.set(f.name, f.value);
    }
    return this.first.get(lower) ?? null;
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

/** Reading took longer than its budget: the message is treated like one that is no e-mail (never retried). */
export class MessageTooSlowError extends MessageFormatError {
  constructor(budgetMs: number) {
    super(`The message could not be read within ${budgetMs} ms; it is too large or too complex.`);
  }
}

/**
 * A time budget checked between steps that are each linear in their input: a backstop, not the main defence.
 * It counts CPU time, not the clock: reading is synchronous, so the CPU it uses is the time it holds the event loop,
 * while the clock would also count other processes' turns and call a valid message unreadable on a busy machine.
 */
export class Deadline {
  private readonly start = process.cpuUsage();
  constructor(readonly budgetMs: number) {}

  check(): void {
    const used = process.cpuUsage(this.start);
    if ((used.user + used.system) / 1000 > this.budgetMs) throw new MessageTooSlowError(this.budgetMs);
  }
}

const MAX_DEPTH = 8;
const MAX_PARTS = 200;
const MAX_CONTENT_TYPE = 4096;
/** Lines of a header block read (real ones have a few hundred); the rest is ignored. */
const MAX_HEADER_LINES = 10_000;
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
  const lines = head.split('\n', MAX_HEADER_LINES).map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
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
export function parseContentType(header: string | null): { type: string; params: Record<string, string> } {
  if (!header) return { type: 'text/plain', params: {} };
  // A boundary has at most 70 characters (RFC 2046): what a longer field adds is junk, not worth parsing.
  const value = header.slice(0, MAX_CONTENT_TYPE);
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
export function parseMessage(text: string, strict = false, deadline?: Deadline): MimePart {
  let parts = 0;
  const walk = (chunk: string, depth: number, defaultType: string): MimePart => {
    if (++parts > MAX_PARTS) throw new MessageFormatError(`The message has more than ${MAX_PARTS} MIME parts.`);
    deadline?.check();
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
    if (body.startsWith(delimiter, pos)) {
      const rest = body.slice(pos + delimiter.length, end);
      const closing = rest.startsWith('--');
      if ((closing ? rest.slice(2) : rest).trim() === '') {
        // The CRLF before a delimiter belongs to the delimiter (RFC 2046 §5.1.1).
        if (start >= 0) parts.push(withoutFinalNewline(body.slice(start, pos)));
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

function withoutFinalNewline(text: string): string {
  if (!text.endsWith('\n')) return text;
  return text.slice(0, text.endsWith('\r\n') ? -2 : -1);
}

/** Undoes a Content-Transfer-Encoding: bytes. */
export function decodeBody(body: string, encoding: string | null): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'base64':
      return decodeBase64(body);
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return Buffer.from(body, 'latin1');
  }
}

/**
 * Base64 with every character outside its alphabet skipped. Node's decoder skips most by itself but reads `-` and
 * `_` as base64url; a byte loop drops them (a global regex replace costs a second on 10 MB of junk).
 */
function decodeBase64(body: string): Buffer {
  const kept = Buffer.alloc(body.length);
  let n = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x3d) {
      kept[n++] = c;
    }
  }
  return Buffer.from(kept.toString('latin1', 0, n), 'base64');
}

/**
 * Quoted-printable (RFC 2045 §6.7) in one pass: white space at the end of a line is dropped, `=` at the end of a line
 * joins it to the next, `=XX` is a byte. A scan rather than regular expressions, because `/[ \t]+\r?\n/` takes
 * quadratic time on a long run of spaces without a line break, and the body comes from anyone.
 */
function decodeQuotedPrintable(body: string): Buffer {
  const bytes = Buffer.alloc(body.length);
  let n = 0;
  let pos = 0;
  while (pos < body.length) {
    const next = body.indexOf('\n', pos);
    const last = next < 0;
    let end = last ? body.length : next;
    const crlf = !last && end > pos && body.charCodeAt(end - 1) === 0x0d;
    if (crlf) end--;
    // Trailing white space is transport padding, on every line but an unterminated last one.
    if (!last) while (end > pos && (body.charCodeAt(end - 1) === 0x20 || body.charCodeAt(end - 1) === 0x09)) end--;
    const soft = !last && end > pos && body.charCodeAt(end - 1) === 0x3d;
    if (soft) end--;
    for (let i = pos; i < end; i++) {
      const c = body.charCodeAt(i);
      const hi = c === 0x3d && i + 2 < end ? hexValue(body.charCodeAt(i + 1)) : -1;
      const lo = hi >= 0 ? hexValue(body.charCodeAt(i + 2)) : -1;
      if (lo >= 0) {
        bytes[n++] = hi * 16 + lo;
        i += 2;
      } else {
        bytes[n++] = c & 0xff;
      }
    }
    if (last) break;
    if (!soft) {
      if (crlf) bytes[n++] = 0x0d;
      bytes[n++] = 0x0a;
    }
    pos = next + 1;
  }
  return bytes.subarray(0, n);
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
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
      const bytes = enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : decodeQuotedPrintable(data.replace(/_/g, ' '));
      return decodeCharset(bytes, charset.replace(/\*.*$/, ''));
    });
}

/** Every part of the tree, depth first, the root included. */
export function* walkParts(part: MimePart): Generator<MimePart> {
  yield part;
  for (const child of part.children) yield* walkParts(child);
}
