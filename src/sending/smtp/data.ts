/*
 * The DATA section of an SMTP transaction (RFC 5321 §4.5.2): every line ends in CRLF, a line that starts with a dot
 * gets a second one, and `CRLF.CRLF` ends the message. A bare CR or LF is never passed on: servers that read one as
 * a line end would otherwise see an end of data the sender did not mean (SMTP smuggling).
 *
 * Mail is handed over as a list of buffers. Checking one is a few native searches (no byte-by-byte loop in
 * JavaScript, which is what made the library path slow); only a buffer that fails the check is rewritten. A buffer
 * that is the same for many messages (a campaign's attachments) is checked once, by `markSmtpSafe`.
 */

const CR = 0x0d;
const LF = 0x0a;
const DOT = 0x2e;
const LF_DOT = Buffer.from('\n.', 'latin1');
const DOT_ONLY = Buffer.from('.', 'latin1');
const END_AFTER_CRLF = Buffer.from('.\r\n', 'latin1');
const END = Buffer.from('\r\n.\r\n', 'latin1');

/** Buffers already known to be clean (see `isClean`). They must never change afterwards. */
const knownClean = new WeakSet<Buffer>();

/** CRLF line ends only, and no line inside that starts with a dot. A leading dot is handled at the seam. */
function isClean(chunk: Buffer): boolean {
  if (chunk.includes(LF_DOT)) return false;
  for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) {
    if (at === 0 || chunk[at - 1] !== CR) return false;
  }
  for (let at = chunk.indexOf(CR); at !== -1; at = chunk.indexOf(CR, at + 1)) {
    if (chunk[at + 1] !== LF) return false;
  }
  return true;
}

/** The slow path, for a buffer that failed the check: bare CR and LF become CRLF, dots after a line end are doubled. */
function rewrite(chunk: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < chunk.length; i++) {
    const byte = chunk[i]!;
    if (byte === CR) {
      out.push(CR, LF);
      if (chunk[i + 1] === LF) i++;
    } else if (byte === LF) {
      out.push(CR, LF);
    } else {
      out.push(byte);
      continue;
    }
    if (chunk[i + 1] === DOT) out.push(DOT);
  }
  return Buffer.from(out);
}

/**
 * Checks (and if need be rewrites) a buffer once and remembers it, so that sending it in many messages costs nothing
 * more. Use the returned buffer, and do not change it afterwards.
 */
export function markSmtpSafe(chunk: Buffer): Buffer {
  if (knownClean.has(chunk)) return chunk;
  const clean = isClean(chunk) ? chunk : rewrite(chunk);
  knownClean.add(clean);
  return clean;
}

/**
 * The bytes to write after the server's 354: the message's buffers made safe, then the end-of-data line. Buffers
 * are passed through, not copied.
 */
export function dataSection(chunks: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  let last = LF; // the start of the message counts as the start of a line
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    const safe = knownClean.has(chunk) || isClean(chunk) ? chunk : rewrite(chunk);
    if (safe[0] === DOT && last === LF) out.push(DOT_ONLY);
    // A chunk that starts a line with LF would have failed the check; CR at a seam was made CRLF by the rewrite.
    out.push(safe);
    last = safe[safe.length - 1]!;
  }
  out.push(last === LF ? END_AFTER_CRLF : END);
  return out;
}
