import { createHash, sign } from 'node:crypto';
import { crlfOnly, headerFields, relaxedHeader, RelaxedBody } from './canonical.js';
import { keysForDomain, type DkimKey } from '../../shared/dkim-keys.js';

/*
 * DKIM-Signature headers (RFC 6376, relaxed/relaxed) for finished messages, one per key of the From domain (RSA,
 * and Ed25519 when configured, RFC 8463). The body hash is computed once per message over its buffers as they are,
 * by a byte scan (canonical.ts; a campaign's shared attachment tail is canonicalised once, then only hashed); the
 * private-key operation runs on libuv's thread pool (`crypto.sign` with a callback), so signatures are made on the
 * other core while the sending loop composes and speaks SMTP. What is the same for every message of a campaign is
 * worked out once: the canonical form of its repeated header fields, and per key the DKIM-Signature header's layout
 * and canonical form, into which only `t=` and `bh=` are put. Signing covers the exact bytes the SMTP client writes,
 * before dot-stuffing.
 *
 * Where it runs: campaign mail is signed on a pool of worker threads (pool.ts), each with a signer of its own made
 * here with `inline: true` (the private-key operation then runs on that thread, synchronously); the sending loop's
 * thread only hands the buffers over. System mail, a few messages, is signed in-process, the private-key operation
 * on libuv's thread pool (`crypto.sign` with a callback).
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

/**
 * Canonical forms of the fields seen lately: most of a campaign's fields (From, Subject, List-Id, Content-Type …)
 * are the same text in every message. Bounded: emptied when it fills up.
 */
const canonicalFields = new Map<string, string>();
const CANONICAL_FIELDS_KEPT = 512;

function canonicalField(field: string): string {
  let canonical = canonicalFields.get(field);
  if (canonical === undefined) {
    if (canonicalFields.size >= CANONICAL_FIELDS_KEPT) canonicalFields.clear();
    canonical = relaxedHeader(field);
    canonicalFields.set(field, canonical);
  }
  return canonical;
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
      canonical += `${canonicalField(instances[i]!)}\r\n`;
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

/** Stand-ins for `t=` and `bh=` while the header is laid out: as long as the values, and unlike anything else in it. */
const T_MARK = '\u0001'.repeat(10);
const BH_MARK = '\u0002'.repeat(44);

/**
 * The DKIM-Signature header of one key for one list of signed field names, laid out once: its folded text and its
 * canonical form (§3.7: the header itself is hashed with an empty `b=`), each cut where `t=` and `bh=` go. The
 * layout depends only on lengths, and those of `t=` (ten digits until 2286) and `bh=` (a SHA-256 in base64) are fixed.
 */
interface SignatureTemplate {
  readonly folded: readonly [string, string, string];
  readonly canonical: readonly [string, string, string];
}

function cutAtMarks(text: string): [string, string, string] {
  const t = text.indexOf(T_MARK);
  const bh = text.indexOf(BH_MARK);
  return [text.slice(0, t), text.slice(t + T_MARK.length, bh), text.slice(bh + BH_MARK.length)];
}

function signatureTemplate(key: DkimKey, h: string): SignatureTemplate {
  const unsigned = foldTags([
    'v=1;',
    `a=${key.algorithm};`,
    'c=relaxed/relaxed;',
    `d=${key.domain};`,
    `s=${key.selector};`,
    `t=${T_MARK};`,
    `h=${h};`,
    `bh=${BH_MARK};`,
    'b=',
  ]);
  return { folded: cutAtMarks(unsigned), canonical: cutAtMarks(relaxedHeader(unsigned)) };
}

/** What is signed, and with which digest: Ed25519-SHA256 (RFC 8463 §3) signs the SHA-256 hash of the canonical headers with PureEdDSA. */
function signingInput(key: DkimKey, data: Buffer): [string | null, Buffer] {
  return key.algorithm === 'rsa-sha256' ? ['sha256', data] : [null, createHash('sha256').update(data).digest()];
}

function signAsync(key: DkimKey, data: Buffer): Promise<Buffer> {
  const [algorithm, input] = signingInput(key, data);
  return new Promise((resolve, reject) => sign(algorithm, input, key.privateKey, (err, signature) => (err ? reject(err) : resolve(signature))));
}

function signInline(key: DkimKey, data: Buffer): Buffer {
  const [algorithm, input] = signingInput(key, data);
  return sign(algorithm, input, key.privateKey);
}

export interface DkimSigner {
  /** Whether mail from this domain would be signed. */
  covers(domain: string): boolean;
  /**
   * The message with its DKIM-Signature header(s) in front, or `raw` as it is when no key covers its From domain.
   * The buffers are passed on uncopied.
   */
  sign(raw: readonly Buffer[]): Promise<readonly Buffer[]>;
  /** The DKIM-Signature header(s) for a message (CRLF after each), or null when no key covers its From domain. */
  headers(raw: readonly Buffer[]): Promise<string | null>;
  /** Ends what the signer started (a pool's threads); nothing for an in-process signer. */
  close(): Promise<void>;
}

export interface SignerOptions {
  /** Told once per From domain that no key signs (the first message from it goes out unsigned). */
  readonly onUnsigned?: (domain: string) => void;
  readonly now?: () => number;
  /** Sign on the calling thread, synchronously (inside a signing thread), rather than on libuv's thread pool. */
  readonly inline?: boolean;
}

export function createDkimSigner(keys: readonly DkimKey[], options: SignerOptions = {}): DkimSigner {
  const now = options.now ?? Date.now;
  // Per key, by `h=`: a campaign's messages all name the same fields, so one layout serves them all.
  const templates = new Map<DkimKey, Map<string, SignatureTemplate>>();
  const templateOf = (key: DkimKey, h: string) => {
    let byNames = templates.get(key);
    if (!byNames) templates.set(key, (byNames = new Map()));
    let template = byNames.get(h);
    if (!template) {
      if (byNames.size >= 64) byNames.clear();
      byNames.set(h, (template = signatureTemplate(key, h)));
    }
    return template;
  };
  const byDomain = new Map<string, DkimKey[]>();
  const keysOf = (domain: string) => {
    let found = byDomain.get(domain);
    if (!found) {
      byDomain.set(domain, (found = keysForDomain(keys, domain)));
      if (found.length === 0) options.onUnsigned?.(domain);
    }
    return found;
  };
  const signWith = options.inline ? (key: DkimKey, data: Buffer) => signInline(key, data) : signAsync;
  const headers = async (raw: readonly Buffer[]): Promise<string | null> => {
    const parts = splitHead(raw);
    if (!parts) return null;
    const head = parseHead(parts.head);
    const signers = head.fromDomain ? keysOf(head.fromDomain) : [];
    if (signers.length === 0) return null;
    const body = new RelaxedBody(createHash('sha256'));
    for (const chunk of parts.body) body.update(chunk);
    const bh = body.finish();
    const { names, canonical } = signedFields(head.fields);
    const h = names.join(':');
    const t = String(Math.floor(now() / 1000));
    const signed = await Promise.all(
      signers.map(async (key) => {
        const template = templateOf(key, h);
        const [c0, c1, c2] = template.canonical;
        const signature = await signWith(key, Buffer.from(`${canonical}${c0}${t}${c1}${bh}${c2}`, 'latin1'));
        const [f0, f1, f2] = template.folded;
        return `${f0}${t}${f1}${bh}${f2}${foldSignature(signature.toString('base64'))}\r\n`;
      }),
    );
    return signed.join('');
  };
  return {
    covers: (domain) => keysOf(domain.toLowerCase()).length > 0,
    headers,
    async sign(raw) {
      const signed = await headers(raw);
      return signed === null ? raw : [Buffer.from(signed, 'latin1'), ...raw];
    },
    close: async () => {},
  };
}
