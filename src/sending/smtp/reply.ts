/*
 * SMTP replies (RFC 5321 §4.2): one or more lines `ddd-text`, the last `ddd text` (or just `ddd`). The reader takes
 * bytes as the socket delivers them and hands back each finished reply.
 */

export interface SmtpReply {
  readonly code: number;
  /** The whole reply as the server wrote it, lines joined with `\n`, e.g. `250-host\n250 PIPELINING`. */
  readonly text: string;
  /** The lines without their codes: what EHLO's extensions are read from. */
  readonly lines: readonly string[];
}

/** A server line longer than this is not SMTP (RFC 5321 allows 512 octets); the connection is given up. */
const MAX_LINE = 8192;
const REPLY_LINE = /^(\d{3})([ -]?)(.*)$/;

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export class ReplyReader {
  private partial = '';
  private lines: string[] = [];
  private texts: string[] = [];

  /** Every reply completed by this chunk, in order. Throws ProtocolError on a line that is not a reply. */
  feed(chunk: Buffer): SmtpReply[] {
    const replies: SmtpReply[] = [];
    const data = this.partial + chunk.toString('latin1');
    let start = 0;
    for (let end = data.indexOf('\n'); end !== -1; end = data.indexOf('\n', start)) {
      const line = data.slice(start, data[end - 1] === '\r' ? end - 1 : end);
      start = end + 1;
      const match = REPLY_LINE.exec(line);
      if (!match) throw new ProtocolError(`The server sent a line that is not an SMTP reply: ${line.slice(0, 200)}`);
      this.lines.push(match[3]!);
      this.texts.push(line);
      if (match[2] !== '-') {
        replies.push({ code: Number(match[1]), text: this.texts.join('\n'), lines: this.lines });
        this.lines = [];
        this.texts = [];
      }
    }
    this.partial = data.slice(start);
    if (this.partial.length > MAX_LINE) throw new ProtocolError('The server sent a line longer than SMTP allows.');
    return replies;
  }
}
