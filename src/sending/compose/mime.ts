/*
 * The MIME encodings the renderer needs (RFC 2045 quoted-printable and base64, RFC 2047 encoded words, RFC 2231
 * parameters, header folding), written for its one use: everything leaves here as 7-bit ASCII with CRLF line ends,
 * so a message can be assembled by joining strings.
 */

export const CRLF = '\r\n';
/** A quoted-printable soft line break: decodes to nothing. Joins separately encoded pieces of one body. */
export const SOFT_BREAK = '=\r\n';

const HEX = '0123456789ABCDEF';
/** Printable ASCII that quoted-printable leaves alone (not `=`), with space allowed inside but not at the end. */
const QP_SAFE = /^(?:[\x21-\x3c\x3e-\x7e](?:[\x20-\x3c\x3e-\x7e]*[\x21-\x3c\x3e-\x7e])?)?$/;
const MAX_QP_LINE = 75; // plus the `=` of a soft break: 76 (RFC 2045 §6.7)

/**
 * Quoted-printable encoding of `text` (LF or CRLF line ends become CRLF hard breaks). Every encoded line is at most
 * 76 characters, and white space never ends a line or the result, so a result can be followed by SOFT_BREAK and
 * another result: the concatenation decodes to the concatenated texts.
 */
export function encodeQuotedPrintable(text: string): string {
  if (text.length <= MAX_QP_LINE && QP_SAFE.test(text)) return text;
  if (QP_SAFE.test(text)) {
    // Long but plain (a URL): only soft breaks to add.
    let out = text.slice(0, MAX_QP_LINE);
    for (let i = MAX_QP_LINE; i < text.length; i += MAX_QP_LINE) out += SOFT_BREAK + text.slice(i, i + MAX_QP_LINE);
    // A slice may end in a space, which the soft break after it protects; the last one cannot (QP_SAFE).
    return out;
  }
  const bytes = Buffer.from(text.replace(/\r\n?/g, '\n'), 'utf8');
  const out = Buffer.allocUnsafe(bytes.length * 3 + Math.ceil(bytes.length / 25) * 3 + 3);
  let pos = 0;
  let line = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x0a) {
      out[pos++] = 0x0d;
      out[pos++] = 0x0a;
      line = 0;
      continue;
    }
    let literal = (b >= 0x21 && b <= 0x7e && b !== 0x3d) || b === 0x20 || b === 0x09;
    if (literal && (b === 0x20 || b === 0x09)) {
      const after = bytes[i + 1];
      if (after === undefined || after === 0x0a) literal = false;
    }
    const width = literal ? 1 : 3;
    if (line + width > MAX_QP_LINE) {
      out[pos++] = 0x3d;
      out[pos++] = 0x0d;
      out[pos++] = 0x0a;
      line = 0;
    }
    if (literal) {
      out[pos++] = b;
    } else {
      out[pos++] = 0x3d;
      out[pos++] = HEX.charCodeAt(b >> 4);
      out[pos++] = HEX.charCodeAt(b & 15);
    }
    line += width;
  }
  return out.toString('latin1', 0, pos);
}

/** Base64 in lines of 76 characters, CRLF-separated, without a final line end. */
export function encodeBase64Lines(data: Buffer): string {
  const b64 = data.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 76) lines.push(b64.slice(i, i + 76));
  return lines.join(CRLF);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function isPrintableAscii(value: string): boolean {
  return PRINTABLE_ASCII.test(value);
}

/**
 * RFC 2047 `=?UTF-8?B?…?=` words for a header text, each at most 75 characters and never splitting a character,
 * separated by folding white space (which decoders drop between encoded words). Plain ASCII is returned as is.
 */
export function encodeWords(text: string): string {
  if (isPrintableAscii(text)) return text;
  const words: string[] = [];
  let chunk = '';
  let chunkBytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    // 45 bytes are 60 base64 characters: with `=?UTF-8?B?` and `?=`, 72.
    if (chunkBytes + size > 45) {
      words.push(chunk);
      chunk = '';
      chunkBytes = 0;
    }
    chunk += char;
    chunkBytes += size;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join(`${CRLF} `);
}

/**
 * `Name: value` folded at spaces so that lines stay within 78 characters where the value allows it (RFC 5322
 * §2.2.3). Values are expected to be ASCII already (encodeWords), and a header never carries CR or LF of its own.
 */
export function header(name: string, value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  const line = `${name}: ${clean}`;
  if (line.length <= 78 || clean.includes(CRLF)) return line;
  const out: string[] = [];
  let current = `${name}:`;
  for (const word of clean.split(' ')) {
    if (current.length + 1 + word.length > 78 && current.trim().length > name.length + 1) {
      out.push(current);
      current = '';
    }
    current += ` ${word}`;
  }
  out.push(current);
  return out.join(CRLF);
}

/** A header value that may be non-ASCII (a subject): encoded words when needed, else folded plain text. */
export function textHeader(name: string, value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  if (isPrintableAscii(clean)) return header(name, clean);
  return `${name}: ${encodeWords(clean)}`;
}

/** An RFC 5322 mailbox: `addr`, or `Name <addr>` with the name quoted or encoded as needed. */
export function mailbox(name: string, address: string): string {
  const display = name.replace(/[\r\n]+/g, ' ').trim();
  if (!display) return address;
  if (/^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]+$/.test(display)) return `${display} <${address}>`;
  if (isPrintableAscii(display)) return `"${display.replace(/(["\\])/g, '\\$1')}" <${address}>`;
  return `${encodeWords(display)} <${address}>`;
}

/** RFC 2045 token characters for a parameter value that needs no quoting. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/**
 * A MIME parameter (`filename`, `name`): `name="value"` for short plain ASCII, otherwise RFC 2231 percent-encoded
 * UTF-8, split into numbered continuations so that no line grows past 78 characters. Answers the parameter
 * strings; join them with `;` and folding white space.
 */
export function mimeParameter(name: string, value: string): string[] {
  const clean = value.replace(/[\r\n]+/g, ' ');
  if (isPrintableAscii(clean) && clean.length <= 60) return [`${name}="${clean.replace(/(["\\])/g, '\\$1')}"`];
  let encoded = '';
  for (const byte of Buffer.from(clean, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  const chunks: string[] = [];
  for (let i = 0; i < encoded.length;) {
    let end = Math.min(i + 50, encoded.length);
    // Never cut a %XX escape.
    if (encoded[end - 1] === '%') end -= 1;
    else if (encoded[end - 2] === '%') end -= 2;
    chunks.push(encoded.slice(i, end));
    i = end;
  }
  if (chunks.length === 1) return [`${name}*=UTF-8''${chunks[0]}`];
  return chunks.map((chunk, i) => `${name}*${i}*=${i === 0 ? "UTF-8''" : ''}${chunk}`);
}

/** A header with parameters, one per folded line: `Content-Type: text/plain;\r\n name="a.txt"`. */
export function headerWithParameters(name: string, value: string, parameters: readonly string[]): string {
  return [`${name}: ${value}`, ...parameters].join(`;${CRLF} `);
}

/** `Tue, 03 Nov 2026 09:30:00 +0000` (RFC 5322 date-time, always UTC). */
export function rfc5322Date(date: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${days[date.getUTCDay()]}, ${two(date.getUTCDate())} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
}
