import type { Hash } from 'node:crypto';

/*
 * DKIM "relaxed" canonicalization (RFC 6376 §3.4.2, §3.4.4), over the bytes the SMTP client will send: data.ts turns
 * every bare CR or LF into CRLF, chunk by chunk, before dot-stuffing, so the same is done here first. Text is handled
 * as latin1 strings (one character per byte), so UTF-8 headers pass through byte for byte. Every regular expression
 * here is a single character class or a fixed string: linear on any input.
 */

const BARE_LINE_END = /\r(?!\n)|(?<!\r)\n/;
const LINE_ENDS = /\r\n|\r|\n/g;

/** CRLF for every line end, as data.ts writes it. */
export function crlfOnly(text: string): string {
  return BARE_LINE_END.test(text) ? text.replace(LINE_ENDS, '\r\n') : text;
}

/** One header field (`Name: value`, folding included, no final CRLF) in relaxed form, without its CRLF. */
export function relaxedHeader(field: string): string {
  const colon = field.indexOf(':');
  const name = field
    .slice(0, colon)
    .replace(/[ \t]+/g, '')
    .toLowerCase();
  const value = field
    .slice(colon + 1)
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ');
  const start = value.startsWith(' ') ? 1 : 0;
  const end = value.endsWith(' ') ? value.length - 1 : value.length;
  return `${name}:${value.slice(start, Math.max(start, end))}`;
}

/** Header fields of a header section (CRLF line ends), each with its folding, in order. */
export function headerFields(section: string): string[] {
  const fields: string[] = [];
  for (const line of section.split('\r\n')) {
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  return fields;
}

interface StaticChunk {
  /** The chunk's canonical lines, without the empty lines at its end. */
  readonly content: Buffer;
  /** Empty lines at its end (held back: they count only if more text follows). */
  readonly trailing: number;
}

/**
 * Canonical forms of chunks seen more than once (a campaign's attachment tail is the same buffer in every message):
 * worked out on the second sighting, then only hashed. Chunks that end inside a line are not kept.
 */
const seenOnce = new WeakSet<Buffer>();
const canonical = new WeakMap<Buffer, StaticChunk | null>();

/** Relaxed lines → the part to hash now and the count of CRLFs at its end. */
function split(lines: string): { content: string; trailing: number } {
  let cut = lines.length;
  while (cut >= 2 && lines.charCodeAt(cut - 1) === 10 && lines.charCodeAt(cut - 2) === 13) cut -= 2;
  return { content: lines.slice(0, cut), trailing: (lines.length - cut) / 2 };
}

/** Complete lines (CRLF-terminated) in relaxed form: runs of white space one space, none at a line's end. */
function relaxLines(lines: string): string {
  return lines.replace(/[ \t]+/g, ' ').replace(/ \r\n/g, '\r\n');
}

/** The relaxed body hash, fed chunk by chunk. */
export class RelaxedBody {
  /** A partial line carried over to the next chunk. */
  private carry = '';
  /** Empty lines seen at the current end: hashed only once more text follows (§3.4.4 drops them at the end). */
  private blank = 0;
  private any = false;

  constructor(private readonly hash: Hash) {}

  update(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.carry === '') {
      const known = canonical.get(chunk);
      if (known) return this.emit(known.content, known.trailing);
      if (known === undefined && seenOnce.has(chunk)) {
        const entry = this.prepare(chunk);
        canonical.set(chunk, entry);
        if (entry) return this.emit(entry.content, entry.trailing);
      } else if (known === undefined) {
        seenOnce.add(chunk);
      }
    }
    const text = this.carry + crlfOnly(chunk.toString('latin1'));
    const end = text.lastIndexOf('\n') + 1;
    this.carry = text.slice(end);
    if (end > 0) this.lines(text.slice(0, end));
  }

  /** The base64 body hash (`bh=`). */
  finish(): string {
    if (this.carry !== '') {
      // A body that does not end with CRLF gets one (§3.4.4).
      this.lines(`${this.carry}\r\n`);
      this.carry = '';
    }
    if (this.any) this.hash.update('\r\n', 'latin1');
    return this.hash.digest('base64');
  }

  private prepare(chunk: Buffer): StaticChunk | null {
    const text = crlfOnly(chunk.toString('latin1'));
    if (!text.endsWith('\n')) return null;
    const { content, trailing } = split(relaxLines(text));
    return { content: Buffer.from(content, 'latin1'), trailing };
  }

  private lines(lines: string): void {
    const { content, trailing } = split(relaxLines(lines));
    this.emit(content, trailing);
  }

  /** `content` ends with a non-empty line, without its CRLF (the CRLF is the first of `trailing`). */
  private emit(content: string | Buffer, trailing: number): void {
    if (content.length > 0) {
      if (this.blank > 0) this.hash.update('\r\n'.repeat(this.blank), 'latin1');
      if (typeof content === 'string') this.hash.update(content, 'latin1');
      else this.hash.update(content);
      this.blank = 0;
      this.any = true;
    }
    this.blank += trailing;
  }
}
