import { createHash, sign } from 'node:crypto';
import { crlfOnly, headerFields, relaxedHeader, RelaxedBody } from './canonical.js';
import { keysForDomain, type DkimKey } from './keys.js';

/*
 * DKIM-Signature headers (RFC 6376, relaxed/relaxed) for finished messages, one per key of the From domain (RSA,
 * and Ed25519 when configured, RFC 8463). The body hash is computed once per message over its buffers as they are
 * (a campaign's shared attachment tail is canonicalised once, then only hashed: canonical.ts); the private-key
 * operation runs on libuv's thread pool (`crypto.sign` with a callback), so several signatures are made in parallel
 * while the sending loop goes on. Signing covers the exact bytes the SMTP client writes, before dot-stuffing.
 */

/**
 * Header fields signed when present (RFC 6376 §5.4.1, plus what RFC 8058 requires of one-click unsubscribe), and
 * From, Subject and To named once more than they occur ("oversigned"), so that no copy of them can be added later.
 */
const SIGNED = [
  'from',
  'to',
  'cc',
  'subject',
  'date',
  'message-id',
  'reply-to',
  'in-reply-to',
  'references',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'list-id',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-help',
  'list-subscribe',
  'list-post',
  'list-owner',
  'list-archive',
];
const OVERSIGNED = ['from', 'subject', 'to'];

interface Head {
  /** Header fields, top to bottom. */
  readonly fields: readonly string[];
  /** The domain of the From address, lower case ('' when there is none). */
  readonly fromDomain: string;
}

/** The header section of a message (all in its first buffer, as the composer builds it, or spread over several). */
function splitHead(raw: readonly Buffer[]): { head: string; body: Buffer[] } | null {
  const first = raw[0];
  if (!first) return null;
  let end = first.indexOf('\r\n\r\n');
  if (end >= 0) return { head: first.toString('latin1', 0, end + 2), body: [first.subarray(end + 4), ...raw.slice(1)] };
  // Rare: a header section across buffers, or written with bare line ends. Join and normalise once.
  const all = Buffer.from(crlfOnly(Buffer.concat(raw).toString('latin1')), 'latin1');
  end = all.indexOf('\r\n\r\n');
  if (end < 0) return null;
  return { head: all.toString('latin1', 0, end + 2), body: [all.subarray(end + 4)] };
}

function parseHead(head: string): Head {
  const fields = headerFields(crlfOnly(head));
  const from = fields.find((f) => /^from[ \t]*:/i.test(f));
  return { fields, fromDomain: from ? addressDomain(from.slice(from.indexOf(':') + 1)) : '' };
}

/** The domain of the (first) address in a From value: `Name <a@b>` or `a@b`. */
function addressDomain(value: string): string {
  const open = value.lastIndexOf('<');
  const close = open >= 0 ? value.indexOf('>', open) : -1;
  const address = open >= 0 && close > open ? value.slice(open + 1, close) : value.replace(/\r\n/g, '').trim();
  const at = address.lastIndexOf('@');
  return at < 0
    ? ''
    : address
        .slice(at + 1)
        .trim()
        .toLowerCase();
}

/** `h=` and the canonical fields it covers, each instance taken from the bottom up (§5.4.2). */
function signedFields(fields: readonly string[]): { names: string[]; canonical: string } {
  const byName = new Map<string, string[]>();
  for (const field of fields) {
    const name = field.slice(0, field.indexOf(':')).trim().toLowerCase();
    if (!SIGNED.includes(name)) continue;
    const list = byName.get(name);
    if (list) list.push(field);
    else byName.set(name, [field]);
  }
  const names: string[] = [];
  let canonical = '';
  for (const name of SIGNED) {
    const instances = byName.get(name) ?? [];
    for (let i = instances.length - 1; i >= 0; i--) {
      names.push(name);
      canonical += `${relaxedHeader(instances[i]!)}\r\n`;
    }
  }
  // An oversigned name stands for a field that is not there: it adds nothing to the hash.
  names.push(...OVERSIGNED);
  return { names, canonical };
}

/** `name=value;` tags on lines of at most ~78 characters; `h=` may fold after any colon (§3.5 allows FWS there). */
function foldTags(tags: readonly string[]): string {
  const lines: string[] = [];
  let line = 'DKIM-Signature:';
  const add = (piece: string) => {
    if (line.length + 1 + piece.length > 78 && line.trim() !== 'DKIM-Signature:') {
      lines.push(line);
      line = '';
    }
    line += ` ${piece}`;
  };
  for (const tag of tags) {
    if (tag.startsWith('h=') && tag.length > 60) {
      const names = tag.slice(2, -1).split(':');
      let piece = 'h=';
      for (const [i, name] of names.entries()) {
        const next = `${name}${i < names.length - 1 ? ':' : ';'}`;
        if (piece.length + next.length > 70) {
          add(piece);
          piece = '';
        }
        piece += next;
      }
      add(piece);
    } else {
      add(tag);
    }
  }
  lines.push(line);
  return lines.join('\r\n');
}

/** The base64 signature, folded for the header: `b=` then lines of 72 characters. */
function foldSignature(b64: string): string {
  const parts: string[] = [];
  for (let i = 0; i < b64.length; i += 72) parts.push(b64.slice(i, i + 72));
  return parts.join('\r\n ');
}

function signAsync(key: DkimKey, data: Buffer): Promise<Buffer> {
  // Ed25519-SHA256 (RFC 8463 §3) signs the SHA-256 hash of the canonical headers with PureEdDSA.
  const [algorithm, input] = key.algorithm === 'rsa-sha256' ? ['sha256', data] : [null, createHash('sha256').update(data).digest()];
  return new Promise((resolve, reject) => sign(algorithm, input, key.privateKey, (err, signature) => (err ? reject(err) : resolve(signature))));
}

export interface DkimSigner {
  /** Whether mail from this domain would be signed. */
  covers(domain: string): boolean;
  /**
   * The message with its DKIM-Signature header(s) in front, or `raw` as it is when no key covers its From domain.
   * The buffers are passed on uncopied.
   */
  sign(raw: readonly Buffer[]): Promise<readonly Buffer[]>;
}

export interface SignerOptions {
  /** Told once per From domain that no key signs (the first message from it goes out unsigned). */
  readonly onUnsigned?: (domain: string) => void;
  readonly now?: () => number;
}

export function createDkimSigner(keys: readonly DkimKey[], options: SignerOptions = {}): DkimSigner {
  const now = options.now ?? Date.now;
  const byDomain = new Map<string, DkimKey[]>();
  const keysOf = (domain: string) => {
    let found = byDomain.get(domain);
    if (!found) {
      byDomain.set(domain, (found = keysForDomain(keys, domain)));
      if (found.length === 0) options.onUnsigned?.(domain);
    }
    return found;
  };
  return {
    covers: (domain) => keysOf(domain.toLowerCase()).length > 0,
    async sign(raw) {
      const parts = splitHead(raw);
      if (!parts) return raw;
      const head = parseHead(parts.head);
      const signers = head.fromDomain ? keysOf(head.fromDomain) : [];
      if (signers.length === 0) return raw;
      const body = new RelaxedBody(createHash('sha256'));
      for (const chunk of parts.body) body.update(chunk);
      const bh = body.finish();
      const { names, canonical } = signedFields(head.fields);
      const t = Math.floor(now() / 1000);
      const headers = await Promise.all(
        signers.map(async (key) => {
          const unsigned = foldTags([
            'v=1;',
            `a=${key.algorithm};`,
            'c=relaxed/relaxed;',
            `d=${key.domain};`,
            `s=${key.selector};`,
            `t=${t};`,
            `h=${names.join(':')};`,
            `bh=${bh};`,
            'b=',
          ]);
          const data = Buffer.from(canonical + relaxedHeader(unsigned), 'latin1');
          const signature = await signAsync(key, data);
          return `${unsigned}${foldSignature(signature.toString('base64'))}\r\n`;
        }),
      );
      return [Buffer.from(headers.join(''), 'latin1'), ...raw];
    },
  };
}
