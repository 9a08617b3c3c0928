import type { Hash } from 'node:crypto';

/*
 * DKIM "relaxed" canonicalization (RFC 6376 §3.4.2, §3.4.4), over the bytes the SMTP client will send: data.ts turns
 * every bare CR or LF into CRLF, buffer by buffer, before dot-stuffing, so the same is done here. Header fields are
 * a few short strings a message, handled as latin1 (one character per byte, so UTF-8 passes through byte for byte);
 * the body, tens of kilobytes a message, is a byte scan over its buffers (`canonicalise`): native searches find the
 * few places that change, the lines around them are hashed straight from the buffer and only those places are
 * rewritten, byte by byte, into a scratch buffer. No string is made of the body and no regular expression runs over it.
 */

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const TAB = 0x09;
const CRLF = Buffer.from('\r\n', 'latin1');
const DOUBLE_SPACE = Buffer.from('  ', 'latin1');

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
 * What the canonical body holds back between lines and between buffers, because only what follows decides it:
 * line ends until a non-empty line follows (§3.4.4 drops the empty lines at the end), white space until something
 * other than white space follows on its line (a run is one space; at the end of a line, none).
 */
interface Held {
  /** Line ends held back. */
  crlfs: number;
  /** White space held back, on the current line. */
  space: boolean;
  /** The last byte seen ended a line (or nothing was seen yet); no white space is then held. */
  lineStart: boolean;
}

/** Where canonical bytes go: a hash, or a list when a buffer is prepared. Always content, never held line ends alone. */
type Emit = (bytes: Buffer) => void;

/** Where the rewritten lines of a buffer are written, then emitted in one call. Reused for every buffer. */
let scratch = Buffer.allocUnsafe(16 * 1024);

/** CRLFs to emit held line ends from, a slice of it at a time. */
const MANY_CRLFS = Buffer.from('\r\n'.repeat(256), 'latin1');

/** Emits the line ends held back (content follows them). */
function releaseLineEnds(held: Held, emit: Emit): void {
  let left = held.crlfs;
  held.crlfs = 0;
  while (left > 0) {
    const now = Math.min(left, MANY_CRLFS.length / 2);
    emit(MANY_CRLFS.subarray(0, now * 2));
    left -= now;
  }
}

/**
 * The byte-by-byte rewrite, for the lines that need one (white space to fold or drop, bare CR or LF, a line cut by
 * the end of a buffer): canonicalises chunk[from, to) from the state `held`, which it updates, writing into `out`
 * from `o`; answers where the output ends.
 */
function rewrite(chunk: Buffer, from: number, to: number, held: Held, out: Buffer, o: number): number {
  // Locals rather than held's fields in the loop: V8 keeps them in registers.
  let crlfs = held.crlfs;
  let space = held.space;
  let lineStart = held.lineStart;
  for (let i = from; i < to; i++) {
    const b = chunk[i]!;
    if (b === SP || b === TAB) {
      space = true;
      lineStart = false;
    } else if (b === CR || b === LF) {
      // CRLF, or a bare CR or LF, which the SMTP client sends as CRLF (data.ts, within one buffer).
      if (b === CR && i + 1 < to && chunk[i + 1] === LF) i++;
      crlfs++;
      space = false;
      lineStart = true;
    } else {
      // Content (any other byte, control characters and 8-bit included): what was held back goes first.
      for (; crlfs > 0; crlfs--) {
        out[o++] = CR;
        out[o++] = LF;
      }
      if (space) {
        out[o++] = SP;
        space = false;
      }
      lineStart = false;
      out[o++] = b;
    }
  }
  held.crlfs = crlfs;
  held.space = space;
  held.lineStart = lineStart;
  return o;
}

/** Lines in a row that need rewriting after which the rest of a buffer is rewritten without looking (measured). */
const REWRITE_REST_AFTER = 8;

/** The first index of `what` in `chunk` at or after `from`, or the chunk's length when there is none. */
function nextOf(chunk: Buffer, what: number | Buffer, from: number): number {
  const at = chunk.indexOf(what, from);
  return at < 0 ? chunk.length : at;
}

/**
 * Canonicalises one buffer from the state `held`. Most lines of a composed mail are canonical already (CRLF, single
 * spaces, nothing at the end): native searches (memchr) find the few places that are not (a tab, two spaces, a
 * space before the line end, a bare CR or LF), and each run of lines between them is emitted straight from the
 * buffer. Only the lines with such a place, and lines cut by the buffer's ends, are rewritten byte by byte (into
 * the scratch buffer, emitted when a run of canonical lines begins, or at the end).
 */
function canonicalise(chunk: Buffer, held: Held, emit: Emit): void {
  const n = chunk.length;
  // At most: the line ends held back, then two bytes a byte read (a bare CR or LF becomes CRLF), a held-back space.
  const need = held.crlfs * 2 + n * 2 + 1;
  if (scratch.length < need) scratch = Buffer.allocUnsafe(Math.max(need, scratch.length * 2));
  const out = scratch;
  let o = 0;
  let i = 0;
  if (!held.lineStart) {
    // The buffer continues a line of the one before: that line is finished byte by byte.
    const lf = chunk.indexOf(LF);
    i = lf < 0 ? n : lf + 1;
    o = rewrite(chunk, 0, i, held, out, o);
  }
  // The next tab, double space and CR at or after the line looked at; each searched again only once passed.
  let tab = -1;
  let double = -1;
  let cr = -1;
  // Canonical lines not yet emitted, from runStart to runEnd: up to the CRLF of the last, which is held back.
  let runStart = -1;
  let runEnd = -1;
  /** Lines rewritten one after the other. */
  let rewritten = 0;
  while (i < n) {
    const lf = chunk.indexOf(LF, i);
    if (lf < 0) break;
    const crlf = lf > i && chunk[lf - 1] === CR;
    const end = crlf ? lf - 1 : lf;
    if (crlf && end === i) {
      // An empty line: held back. Inside a run, its bytes are the ones its canonical form would have.
      held.crlfs++;
    } else {
      // Each search only while the line still looks canonical.
      let canonical = crlf && chunk[end - 1] !== SP;
      if (canonical && tab < i) tab = nextOf(chunk, TAB, i);
      canonical &&= tab >= end;
      if (canonical && double < i) double = nextOf(chunk, DOUBLE_SPACE, i);
      canonical &&= double >= end;
      if (canonical && cr < i) cr = nextOf(chunk, CR, i);
      canonical &&= cr >= end;
      if (canonical) {
        rewritten = 0;
        // Canonical as it is: it opens a run (after what was rewritten and the line ends held), or extends one.
        if (runStart < 0) {
          if (o > 0) emit(out.subarray(0, o));
          o = 0;
          releaseLineEnds(held, emit);
          runStart = i;
        }
        held.crlfs = 1;
        runEnd = end;
      } else {
        if (runStart >= 0) emit(chunk.subarray(runStart, runEnd));
        runStart = -1;
        // Where line after line needs rewriting (indented HTML), the searches cost more than they save.
        if (++rewritten === REWRITE_REST_AFTER) break;
        o = rewrite(chunk, i, lf + 1, held, out, o);
      }
    }
    i = lf + 1;
  }
  if (runStart >= 0) emit(chunk.subarray(runStart, runEnd));
  // The last line, cut by the end of the buffer (or all the rest, after many lines to rewrite in a row).
  if (i < n) o = rewrite(chunk, i, n, held, out, o);
  if (o > 0) emit(out.subarray(0, o));
}

/** A buffer's canonical form, worked out once for buffers sent in many messages (a campaign's attachment tail). */
interface Prepared {
  /** Line ends before its first content (added to those held back). */
  readonly leading: number;
  /** From its first to its last content byte, canonical; empty when it has none. */
  readonly content: Buffer;
  /** What it leaves held back (its line ends after the content, white space on an unfinished last line). */
  readonly after: Held;
}

/**
 * Buffers seen more than once are prepared on the second sighting, then only hashed. A prepared form holds for a
 * buffer that begins at the start of a line (the usual case: the tail follows a body that ends in a line end).
 */
const seenOnce = new WeakSet<Buffer>();
const prepared = new WeakMap<Buffer, Prepared>();

/** The canonical form of a buffer on its own, from the start of a line with nothing held back. */
function prepare(chunk: Buffer): Prepared {
  let leading = 0;
  let i = 0;
  // Line ends before the first content are counted, not written: they join whatever is held back when it is used.
  for (; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (b === CR && chunk[i + 1] === LF) i++;
    else if (b !== CR && b !== LF) break;
    leading++;
  }
  const parts: Buffer[] = [];
  const after: Held = { crlfs: 0, space: false, lineStart: true };
  canonicalise(chunk.subarray(i), after, (bytes) => parts.push(Buffer.from(bytes)));
  return { leading, content: Buffer.concat(parts), after };
}

/** The relaxed body hash, fed buffer by buffer. */
export class RelaxedBody {
  private readonly held: Held = { crlfs: 0, space: false, lineStart: true };
  /** Whether any content was hashed (an empty body hashes as nothing, a non-empty one ends with one CRLF). */
  private any = false;
  private readonly emit: Emit = (bytes) => {
    this.hash.update(bytes);
    this.any = true;
  };

  constructor(private readonly hash: Hash) {}

  update(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.held.lineStart) {
      let known = prepared.get(chunk);
      if (!known && seenOnce.has(chunk)) prepared.set(chunk, (known = prepare(chunk)));
      if (known) return this.usePrepared(known);
      seenOnce.add(chunk);
    }
    canonicalise(chunk, this.held, this.emit);
  }

  /** The base64 body hash (`bh=`). */
  finish(): string {
    // A non-empty body ends with exactly one CRLF (§3.4.4), whether it ended with one, several or none.
    if (this.any) this.hash.update(CRLF);
    return this.hash.digest('base64');
  }

  /** A prepared buffer: its leading line ends join those held, and its content releases them, as any content does. */
  private usePrepared(entry: Prepared): void {
    const held = this.held;
    held.crlfs += entry.leading;
    if (entry.content.length > 0) {
      releaseLineEnds(held, this.emit);
      this.emit(entry.content);
    }
    held.crlfs += entry.after.crlfs;
    held.space = entry.after.space;
    held.lineStart = entry.after.lineStart;
  }
}
