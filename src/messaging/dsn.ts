import { createHash } from 'node:crypto';
import {
  Deadline,
  MessageFormatError,
  MessageTooSlowError,
  decodeWords,
  parseHeaders,
  parseMessage,
  partText,
  walkParts,
  type Headers,
  type MimePart,
} from './mime.js';

/*
 * What a bounce message says: RFC 3464 delivery status notifications (multipart/report; report-type=delivery-status),
 * RFC 5965 abuse reports (report-type=feedback-report), and, for mail servers that send neither, the enhanced status
 * code and the returned headers found in the text. The headers the sender put in every campaign mail
 * (X-Mailroom-Delivery, X-Mailroom-Campaign, X-Mailroom-Subscriber, Message-ID) are looked for in the returned
 * message or headers part first, then anywhere in the body.
 */

/** `hard` 5.x.x, `soft` 4.x.x, `complaint` an abuse report, `unknown` a failure without a status; null: not a failure. */
export type BounceKind = 'hard' | 'soft' | 'complaint' | 'unknown';

export interface ReturnedHeaders {
  readonly deliveryId: number | null;
  readonly campaignId: number | null;
  readonly subscriberUid: string | null;
  /** The returned mail's Message-ID, angle brackets included. */
  readonly messageId: string | null;
  /**
   * Where they were found: a returned message or header part, or lines of the text (quoted by an old-style server,
   * or written by anyone: such a match is not certain enough to act on, bounce-decision.ts); null: nowhere.
   */
  readonly foundIn: 'part' | 'text' | null;
}

export interface BounceReport {
  /** What makes the bounce message unique: its Message-ID, or a digest of its bytes when it has none. */
  readonly key: string;
  readonly kind: BounceKind | null;
  /** Enhanced status code (`5.1.1`). */
  readonly status: string | null;
  /** DSN Action (`failed`, `delayed`, …) or ARF Feedback-Type. */
  readonly action: string | null;
  readonly diagnostic: string | null;
  /** The address that failed or complained. */
  readonly recipient: string | null;
  readonly returned: ReturnedHeaders;
  /**
   * The addresses the bounce was sent to, where a VERP token may be (verp.ts): its To, Delivered-To and
   * X-Original-To headers and the report's Original-Recipient, at most MAX_ADDRESSES of them.
   */
  readonly addressedTo: readonly string[];
  /** The bounce's own header block, for storage. */
  readonly header: string;
  /** The readable text (diagnostic first), what bounce rules are matched against. */
  readonly text: string;
}

/** Bytes kept of the bounce's body and text: enough for rules and for a person reading it. */
const MAX_TEXT = 64 * 1024;
const MAX_KEY = 250;
const MAX_ADDRESSES = 20;

/** Time reading one message may take unless configured (BOUNCE_READ_TIMEOUT_MS). */
export const DEFAULT_READ_TIMEOUT_MS = 2000;

/**
 * Reads a raw bounce. Throws MessageFormatError when the bytes are not an e-mail message at all, and its
 * MessageTooSlowError when reading takes more than `timeoutMs`.
 */
export function readBounce(raw: Buffer, timeoutMs = DEFAULT_READ_TIMEOUT_MS): BounceReport {
  const deadline = new Deadline(timeoutMs);
  const text = raw.toString('latin1');
  if (text.trim() === '') throw new MessageFormatError('The message is empty.');
  const root = parseMessage(text, true, deadline);
  const h = root.headers;
  if (!['from', 'date', 'message-id', 'received', 'return-path'].some((name) => h.has(name))) {
    throw new MessageFormatError('The message has no From, Date, Message-ID, Received or Return-Path header: it is not an e-mail.');
  }
  const parts = [...walkParts(root)];
  const dsn = parts.find((p) => p.contentType === 'message/delivery-status' || p.contentType === 'message/global-delivery-status');
  const arf = parts.find((p) => p.contentType === 'message/feedback-report');
  const readable = readableText(parts, deadline);
  deadline.check();

  let kind: BounceKind | null;
  let status: string | null = null;
  let action: string | null = null;
  let diagnostic: string | null = null;
  let recipient: string | null = null;
  let originalRecipient: string | null = null;
  if (arf) {
    const fields = parseHeaders(partText(arf).slice(0, MAX_TEXT));
    // Written into history and the comment: only a plain token is taken from the report.
    action = /^[a-z0-9-]{1,40}$/.exec(fields.get('feedback-type')?.toLowerCase() ?? '')?.[0] ?? 'abuse';
    kind = action === 'not-spam' ? null : 'complaint';
    recipient = address(fields.get('original-rcpt-to'));
  } else if (dsn) {
    // Real reports have a few fields per recipient: the first MAX_TEXT characters hold them.
    const chosen = chooseRecipient(partText(dsn).slice(0, MAX_TEXT));
    action = chosen?.get('action')?.toLowerCase() ?? null;
    status = enhancedStatus(chosen?.get('status') ?? null);
    diagnostic = withoutType(chosen?.get('diagnostic-code') ?? null);
    recipient = address(chosen?.get('final-recipient') ?? chosen?.get('original-recipient') ?? null);
    originalRecipient = chosen?.get('original-recipient') ?? null;
    status ??= enhancedStatus(diagnostic);
    kind = classify(action, status);
  } else {
    // Not a report: take the first enhanced status code of the text, preferring one right after an SMTP reply code.
    const found = /\b[45]\d\d[ -]([45]\.\d{1,3}\.\d{1,3})\b/.exec(readable) ?? /\b([45]\.\d{1,3}\.\d{1,3})\b/.exec(readable);
    status = found?.[1] ?? null;
    diagnostic = found ? lineAround(readable, found.index) : null;
    kind = status ? classify('failed', status) : 'unknown';
  }
  recipient ??= address(h.get('x-failed-recipients'));
  const addressedTo = h.fields
    .filter((f) => f.name === 'to' || f.name === 'delivered-to' || f.name === 'x-original-to')
    .map((f) => f.value)
    .concat(originalRecipient ? [originalRecipient] : [])
    .slice(0, MAX_ADDRESSES)
    .map((v) => v.slice(0, 1000));

  return {
    key: keyOf(h.get('message-id'), raw),
    kind,
    status,
    action,
    // Decoded words never grow: the first 4000 characters give the 1000 kept.
    diagnostic: diagnostic ? decodeWords(diagnostic.slice(0, 4000)).slice(0, 1000) : null,
    recipient,
    returned: returnedHeaders(parts, root, text, deadline),
    addressedTo,
    header: text.slice(0, Math.min(text.length, headerEnd(text))).slice(0, MAX_TEXT),
    text: [diagnostic, readable].filter(Boolean).join('\n').slice(0, MAX_TEXT),
  };
}

/** A per-recipient block of the DSN: the first that failed, else the first delayed, else the first. */
function chooseRecipient(report: string): Headers | null {
  const blocks = report
    .split(/\r?\n[ \t]*\r?\n/)
    .map((block) => parseHeaders(block))
    .filter((fields) => fields.fields.length > 0);
  const recipients = blocks.filter((b) => b.has('action') || b.has('final-recipient') || b.has('status'));
  return (
    recipients.find((b) => b.get('action')?.toLowerCase() === 'failed') ??
    recipients.find((b) => b.get('action')?.toLowerCase() === 'delayed') ??
    recipients[0] ??
    null
  );
}

function classify(action: string | null, status: string | null): BounceKind | null {
  if (status?.startsWith('2') || (action && ['delivered', 'relayed', 'expanded'].includes(action))) return null;
  if (status?.startsWith('5')) return 'hard';
  if (status?.startsWith('4')) return 'soft';
  if (action === 'failed') return 'hard';
  if (action === 'delayed') return 'soft';
  return 'unknown';
}

const enhancedStatus = (value: string | null) => /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(value ?? '')?.[1] ?? null;

/** `rfc822; alice@example.com` → `alice@example.com`; `smtp; 550 …` → `550 …`. */
function withoutType(value: string | null): string | null {
  if (!value) return null;
  const semi = value.indexOf(';');
  return (semi >= 0 && /^[A-Za-z0-9-]+$/.test(value.slice(0, semi).trim()) ? value.slice(semi + 1) : value).trim() || null;
}

function address(value: string | null): string | null {
  const bare = withoutType(value)?.replace(/^<|>$/g, '').trim();
  return bare && /^[^\s@<>]+@[^\s@<>]+$/.test(bare) && bare.length <= 255 ? bare : null;
}

/** The text/* parts that are not the returned message, decoded. */
function readableText(parts: MimePart[], deadline: Deadline): string {
  const returned = new Set<MimePart>();
  for (const p of parts)
    if (p.contentType === 'message/rfc822' || p.contentType === 'message/global') p.children.forEach((c) => markAll(c, returned));
  let out = '';
  for (const p of parts) {
    if (returned.has(p) || p.children.length > 0) continue;
    if (p.contentType === 'text/plain' || p.contentType === 'text/html' || p.contentType.includes('delivery-status')) {
      deadline.check();
      const t = partText(p);
      out += `${p.contentType === 'text/html' ? withoutTags(t) : t}\n`;
      if (out.length > MAX_TEXT) break;
    }
  }
  return out.slice(0, MAX_TEXT);
}

/**
 * HTML with its tags replaced by spaces: a scan, because `/<[^>]*>/g` retries from every `<` of a run without `>`
 * (quadratic). An unclosed `<` and what follows stay as they are, as before.
 */
export function withoutTags(html: string): string {
  let out = '';
  let pos = 0;
  for (let open = html.indexOf('<'); open >= 0; open = html.indexOf('<', pos)) {
    const close = html.indexOf('>', open + 1);
    if (close < 0) break;
    out += `${html.slice(pos, open)} `;
    pos = close + 1;
  }
  return out + html.slice(pos);
}

function markAll(part: MimePart, into: Set<MimePart>): void {
  for (const p of walkParts(part)) into.add(p);
}

/** The mailroom headers of the returned mail: from its own part if there is one, else from lines of the body. */
function returnedHeaders(parts: MimePart[], root: MimePart, text: string, deadline: Deadline): ReturnedHeaders {
  for (const p of parts) {
    deadline.check();
    let headers: Headers | null = null;
    if ((p.contentType === 'message/rfc822' || p.contentType === 'message/global') && p.children[0]) headers = p.children[0].headers;
    if (p.contentType === 'text/rfc822-headers' || p.contentType === 'message/global-headers') headers = parseHeaders(partText(p));
    if (headers && (headers.has('x-mailroom-delivery') || headers.has('x-mailroom-campaign') || headers.has('message-id'))) {
      return fromHeaders((name) => headers.get(name), 'part');
    }
  }
  // Some servers quote the returned header in the text (or with an encoding): look for the lines themselves.
  const body = [...parts.filter((p) => p.children.length === 0).map((p) => partText(p)), text.slice(headerEnd(text))].join('\n');
  const line = (name: string) => new RegExp(`^[ \\t>]*${name}:[ \\t]*(.+)$`, 'im').exec(body)?.[1]?.trim() ?? null;
  deadline.check();
  const found = fromHeaders((name) => line(name), 'text');
  // The bounce's own Message-ID is in its header, never in the body: anything found in the body is the original's.
  const headers = found.messageId === root.headers.get('message-id') ? { ...found, messageId: null } : found;
  const any = headers.deliveryId !== null || headers.campaignId !== null || headers.subscriberUid !== null || headers.messageId !== null;
  return any ? headers : { ...headers, foundIn: null };
}

function fromHeaders(get: (name: string) => string | null, foundIn: 'part' | 'text'): ReturnedHeaders {
  const delivery = /^\d{1,15}$/.exec(get('x-mailroom-delivery') ?? '')?.[0];
  const campaign = /^\d{1,10}$/.exec(get('x-mailroom-campaign') ?? '')?.[0];
  return {
    deliveryId: delivery ? Number(delivery) : null,
    campaignId: campaign && Number(campaign) <= 2_147_483_647 ? Number(campaign) : null,
    subscriberUid: /^[0-9a-f]{32}$/i.exec(get('x-mailroom-subscriber') ?? '')?.[0]?.toLowerCase() ?? null,
    messageId: /<[^<>\s]{1,250}>/.exec(get('message-id') ?? '')?.[0] ?? null,
    foundIn,
  };
}

function headerEnd(text: string): number {
  const m = /\r?\n\r?\n/.exec(text);
  return m ? m.index : text.length;
}

function lineAround(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  return text.slice(start, end < 0 ? undefined : end).trim();
}

/** The bounce's Message-ID, or a digest of its bytes: a message read twice (mailbox and HTTP) has one key. */
function keyOf(messageId: string | null, raw: Buffer): string {
  const id = messageId?.trim();
  if (id && id.length <= MAX_KEY) return id;
  return `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}

export { MessageFormatError, MessageTooSlowError };
