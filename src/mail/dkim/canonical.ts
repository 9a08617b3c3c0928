import type { Hash } from 'node:crypto';

/*
 * DKIM "relaxed" canonicalization (RFC 6376 §3.4.2, §3.4.4), over the bytes the SMTP client will send: data.ts turns
 * every bare CR or LF into CRLF, buffer by buffer, before dot-stuffing, so the same is done here. Header fields are
 * a few short strings a message, handled as latin1 (one character per byte, so UTF-8 passes through byte for byte);
 * the body, tens of kilobytes a message, is scanned byte by byte over its buffers, written canonical into a scratch
 * buffer and hashed from there: no string is made of it and no regular expression runs over it.
 */

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const TAB = 0x09;
const CRLF = Buffer.from('\r\n', 'latin1');

const BARE_LINE_END = /\r(?!\n)|(?<!\r)\n/;
const LINE_ENDS = /\r\n|\r|\n/g;

/** CRLF for every line end, as data.ts writes it (header sections only: a few hundred bytes). */
export function crlfOnly(text: string): string {
  return BARE_LINE_END.test(text) ? text.replace(LINE_ENDS, '\r\n') : text;
}

const isWsp = (code: number) => code === SP || code === TAB;

/** Without the spaces at either end (SP only: `trim()` would also take latin1's 0xA0, a byte inside UTF-8). */
function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === SP) start++;
  while (end > start && text.charCodeAt(end - 1) === SP) end--;
  return text.slice(start, end);
}

/**
 * One header field (`Name: value`, folding included, no final CRLF) in relaxed form, without its CRLF: the name in
 * lower case without white space, the value unfolded, runs of white space one space, none at either end.
 */
export function relaxedHeader(field: string): string {
  const colon = field.indexOf(':');
  let name = field.slice(0, colon);
  if (name.includes(' ') || name.includes('\t')) name = name.replaceAll(' ', '').replaceAll('\t', '');
  const raw = field.slice(colon + 1);
  // Most fields are one line with single spaces: only the ends to trim.
  if (!raw.includes('\r') && !raw.includes('\n') && !raw.includes('\t') && !raw.includes('  ')) return `${name.toLowerCase()}:${trimSpaces(raw)}`;
  let value = '';
  let space = false;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === CR || code === LF) continue; // unfolding: the white space after the line end stays
    if (isWsp(code)) {
      space = true;
      continue;
    }
    if (space && value !== '') value += ' ';
    space = false;
    value += raw[i];
  }
  return `${name.toLowerCase()}:${value}`;
}

/** Header fields of a header section (CRLF line ends), each with its folding, in order. */
export function headerFields(section: string): string[] {
  const fields: string[] = [];
  for (const line of section.split('\r\n')) {
    if (line === '') continue;
    const first = line.charCodeAt(0);
    if (isWsp(first) && fields.length > 0) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  return fields;
}

/**
 * Where the canonical body stands between two pieces: what is held back because only what follows decides it.
 * Line ends are held until a non-empty line follows (§3.4.4 drops the empty lines at the end), white space until
 * something other than white space follows on its line (a run is one space; at the end of a line, none).
 */
interface Pending {
  /** Line ends held back. */
  crlfs: number;
  /** White space held back, on the current line. */
  space: boolean;
  /** The last byte seen ended a line (or nothing was seen yet). */
  lineStart: boolean;
}

/** A buffer's canonical form, worked out once for buffers sent in many messages (a campaign's attachment tail). */
interface Prepared {
  /** Line ends before its first content (added to those held back). */
  readonly leading: number;
  /** From its first to its last content byte, canonical; empty when it has none. */
  readonly content: Buffer;
  /** What it leaves held back, when it has content. */
  readonly after: Pending;
}

/**
 * Buffers seen more than once are prepared on the second sighting, then only hashed. A prepared form holds for a
 * buffer that begins at the start of a line (the usual case: the tail follows a body that ends in a line end).
 */
const seenOnce = new WeakSet<Buffer>();
const prepared = new WeakMap<Buffer, Prepared>();

/** Reused for every message: the canonical bytes of one buffer are written here, then hashed in one call. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Canonicalises `chunk` from the state `p` (updated in place) into `out` from `at`; answers where the output ends.
 * `out` must hold p.crlfs * 2 + chunk.length * 2 + 1 more bytes: the line ends held back from before, then at most
 * two bytes a byte read (a bare CR or LF becomes CRLF), and a held-back space.
 */
function scan(chunk: Buffer, p: Pending, out: Buffer, at: number): number {
  // Locals rather than p's fields in the loop: V8 keeps them in registers.
  let o = at;
  let crlfs = p.crlfs;
  let space = p.space;
  let lineStart = p.lineStart;
  const n = chunk.length;
  for (let i = 0; i < n; i++) {
    const b = chunk[i]!;
    if (b > SP) {
      if (crlfs > 0) {
        do {
          out[o++] = CR;
          out[o++] = LF;
        } while (--crlfs > 0);
      }
      if (space) {
        out[o++] = SP;
        space = false;
      }
      lineStart = false;
      out[o++] = b;
    } else if (b === SP || b === TAB) {
      space = true;
      lineStart = false;
    } else if (b === CR || b === LF) {
      // CRLF, or a bare CR or LF, which the SMTP client sends as CRLF (data.ts, within one buffer).
      if (b === CR && chunk[i + 1] === LF) i++;
      crlfs++;
      space = false;
      lineStart = true;
    } else {
      // Another control character: content like any other byte.
      if (crlfs > 0) {
        do {
          out[o++] = CR;
          out[o++] = LF;
        } while (--crlfs > 0);
      }
      if (space) {
        out[o++] = SP;
        space = false;
      }
      lineStart = false;
      out[o++] = b;
    }
  }
  p.crlfs = crlfs;
  p.space = space;
  p.lineStart = lineStart;
  return o;
}

function ensureScratch(bytes: number): Buffer {
  if (scratch.length < bytes) scratch = Buffer.allocUnsafe(Math.max(bytes, scratch.length * 2));
  return scratch;
}

/** The canonical form of a buffer on its own, from the start of a line with nothing held back. */
function prepare(chunk: Buffer): Prepared {
  const out = Buffer.allocUnsafe(chunk.length * 2 + 2);
  let leading = 0;
  let i = 0;
  // Line ends before the first content are counted, not written: they join whatever is held back when it is used.
  for (; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (b === CR && chunk[i + 1] === LF) i++;
    else if (b !== CR && b !== LF) break;
    leading++;
  }
  const after: Pending = { crlfs: 0, space: false, lineStart: true };
  const end = scan(chunk.subarray(i), after, out, 0);
  return { leading, content: Buffer.from(out.subarray(0, end)), after };
}

/** The relaxed body hash, fed buffer by buffer. */
export class RelaxedBody {
  private readonly pending: Pending = { crlfs: 0, space: false, lineStart: true };
  /** Whether any content was hashed (an empty body hashes as nothing, a non-empty one ends with one CRLF). */
  private any = false;

  constructor(private readonly hash: Hash) {}

  update(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const p = this.pending;
    if (p.lineStart) {
      const known = prepared.get(chunk);
      if (known) return this.usePrepared(known);
      if (seenOnce.has(chunk)) {
        const entry = prepare(chunk);
        prepared.set(chunk, entry);
        return this.usePrepared(entry);
      }
      seenOnce.add(chunk);
    }
    // At most: the line ends held back, then every byte doubled (a bare CR or LF), and a held-back space.
    const out = ensureScratch(p.crlfs * 2 + chunk.length * 2 + 1);
    const end = scan(chunk, p, out, 0);
    if (end > 0) {
      this.hash.update(out.subarray(0, end));
      this.any = true;
    }
  }

  /** The base64 body hash (`bh=`). */
  finish(): string {
    // A non-empty body ends with exactly one CRLF (§3.4.4), whether it ended with one, several or none.
    if (this.any) this.hash.update(CRLF);
    return this.hash.digest('base64');
  }

  private usePrepared(entry: Prepared): void {
    const p = this.pending;
    if (entry.content.length === 0) {
      p.crlfs += entry.leading + entry.after.crlfs;
      p.space = entry.after.space;
      p.lineStart = entry.after.lineStart;
      return;
    }
    const crlfs = p.crlfs + entry.leading;
    if (crlfs > 0) this.hash.update(crlfs === 1 ? CRLF : Buffer.from('\r\n'.repeat(crlfs), 'latin1'));
    this.hash.update(entry.content);
    this.any = true;
    p.crlfs = entry.after.crlfs;
    p.space = entry.after.space;
    p.lineStart = entry.after.lineStart;
  }
}
