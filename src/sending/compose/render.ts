import { randomBytes } from 'node:crypto';
import { CRLF, SOFT_BREAK, encodeQuotedPrintable, rfc5322Date } from './mime.js';
import type { HeadLines } from './header-text.js';
import { escapeHtml, type CompiledBody, type Slot } from './placeholders.js';
import type { Skeleton } from './skeleton.js';
import { RecipientError, type CompiledCampaign, type RecipientData, type Rendered } from './types.js';

/*
 * Per-recipient rendering: fill the slots of the two prepared bodies, put the recipient's headers around them,
 * and hand the result over beside the static tail (attachments). No parsing, no encoding of anything static.
 */

/** What a render needs from the compiled campaign. */
export interface RenderPlan {
  readonly campaignId: number;
  readonly host: string;
  readonly envelopeFrom: string;
  /** BOUNCE_VERP: the envelope sender of a delivery (null: its id does not fit a token, envelopeFrom then). */
  readonly verpFrom: ((deliveryId: number) => string | null) | null;
  /** The unique part of a delivery's Message-ID, the same for every attempt (tokens.ts, messageIdSigner). */
  messageIdToken(deliveryId: number): string;
  /** `From` and `Subject` (static, or filled per recipient: header-text.ts), then `Reply-To` to `X-Mailroom-Campaign`. */
  readonly headBefore: HeadLines;
  readonly headAfter: string;
  /** Whether mails carry List-Unsubscribe (not forwarded copies). */
  readonly listUnsubscribe: boolean;
  readonly html: { readonly body: CompiledBody; readonly skeleton: Skeleton } | null;
  readonly text: { readonly body: CompiledBody; readonly skeleton: Skeleton };
  /** Link id of each tracked URL, by its index in the bodies' marks. */
  readonly linkIds: readonly number[];
  readonly publicUrl: string;
  signLink(linkId: number, subscriberId: number): string;
  unsubscribeUrl(uniqueId: string): string;
  /** The recipient's preference-centre link (sending/preferences-link.ts). */
  preferencesUrl(uniqueId: string): string;
  /** The recipient's forward-to-a-friend page (sending/forward-link.ts). */
  forwardUrl(uniqueId: string): string;
  confirmationUrl(uniqueId: string): string;
}

const NOT_SUBSCRIBED = 'Sorry, you are not subscribed to any of our newsletters with this email address.';
/** An address that can stand in a header and an SMTP envelope as it is. */
const USABLE_ADDRESS = /^[^\s<>()[\],;:"@\\]+@[^\s<>()[\],;:"@\\]+$/;
const ASCII = /^[\x20-\x7e]*$/;

let entropy = randomBytes(4096);
let entropyAt = 0;
/** 8 random hex characters, from a pool refilled every 1,024 mails (one syscall instead of one per mail). */
function randomHex8(): string {
  if (entropyAt + 4 > entropy.length) {
    entropy = randomBytes(4096);
    entropyAt = 0;
  }
  entropyAt += 4;
  return entropy.toString('hex', entropyAt - 4, entropyAt);
}

let dateSecond = -1;
let dateText = '';
/** The Date header's text, formatted once per second. */
function nowHeader(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = rfc5322Date(new Date(second * 1000));
  }
  return dateText;
}

const flag = (value: boolean) => (value ? '1' : '0');
const sqlTime = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');

/**
 * A mail under construction: ASCII strings (static pieces, headers, encoded values) joined once at the end into one
 * buffer; the static tail, the same buffer for every recipient, follows it uncopied.
 */
class Assembler {
  private readonly parts: string[] = [];
  private ascii = true;

  /** Header text; only an address or unique id can be non-ASCII (then the mail is written as UTF-8). */
  text(value: string): void {
    if (this.ascii && !ASCII.test(value)) this.ascii = false;
    this.parts.push(value);
  }

  /** A body: its encoded pieces, and each distinct value encoded once and set apart by soft line breaks (mime.ts). */
  body(body: CompiledBody, values: Values, html: boolean): void {
    const { pieces, slots } = body;
    const encoded: (string | undefined)[] = new Array(body.valueCount);
    const parts = this.parts;
    parts.push(pieces[0]!);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      let text = encoded[slot.valueId];
      if (text === undefined) {
        const v = (html ? values.html(slot) : values.text(slot)) || slot.fallback;
        text = v === '' ? '' : SOFT_BREAK + (slot.kind === 'trackedLink' ? v : encodeQuotedPrintable(v)) + SOFT_BREAK;
        encoded[slot.valueId] = text;
      }
      parts.push(text, pieces[i + 1]!);
    }
  }

  finish(tail: Buffer): Buffer[] {
    const head = Buffer.from(this.parts.join(''), this.ascii ? 'latin1' : 'utf8');
    return tail.length > 0 ? [head, tail] : [head];
  }
}

/** One recipient's values, each worked out at most once per mail. */
class Values {
  private unsubscribe: string | undefined;
  private readonly tokens: (string | undefined)[] = [];

  constructor(
    private readonly plan: RenderPlan,
    readonly r: RecipientData,
  ) {}

  unsubscribeUrl(): string {
    return (this.unsubscribe ??= this.plan.unsubscribeUrl(this.r.uniqueId));
  }

  private preferencesUrl(): string {
    return this.plan.preferencesUrl(this.r.uniqueId);
  }

  private forwardUrl(): string {
    return this.plan.forwardUrl(this.r.uniqueId);
  }

  private token(index: number): string {
    let token = this.tokens[index];
    if (token === undefined) {
      token = this.plan.signLink(this.plan.linkIds[index]!, this.r.subscriberId);
      this.tokens[index] = token;
    }
    return token;
  }

  /** The value as text: what both parts show, before HTML escaping. */
  text(slot: Slot): string {
    const r = this.r;
    switch (slot.kind) {
      case 'trackedLink':
        return this.token(slot.index);
      case 'email':
        return r.email;
      case 'uniqueId':
        return r.uniqueId;
      case 'attribute':
        return r.attributes.get(slot.key) ?? '';
      case 'unsubscribeUrl':
        return this.unsubscribeUrl();
      case 'preferencesUrl':
        return this.preferencesUrl();
      case 'forwardUrl':
        return this.forwardUrl();
      case 'confirmationUrl':
        return this.plan.confirmationUrl(r.uniqueId);
      case 'confirmed':
        return flag(r.confirmed);
      case 'blacklisted':
        return flag(r.blacklisted);
      case 'disabled':
        return flag(r.disabled);
      case 'htmlEmail':
        return flag(r.htmlEmail);
      case 'bounceCount':
        return String(r.bounceCount);
      case 'entered':
        return sqlTime(r.createdAt);
      case 'modified':
        return sqlTime(r.updatedAt);
      case 'lists':
        return r.lists.length > 0 ? r.lists.join('\n') : NOT_SUBSCRIBED;
    }
  }

  /** The value as HTML: escaped; `[LISTS]` one name per line (reference §7.3). */
  html(slot: Slot): string {
    switch (slot.kind) {
      case 'trackedLink':
        return this.token(slot.index);
      case 'lists':
        return this.r.lists.length > 0 ? this.r.lists.map(escapeHtml).join('<br>') : NOT_SUBSCRIBED;
      default:
        return escapeHtml(this.text(slot));
    }
  }
}

export class CampaignRenderer implements CompiledCampaign {
  readonly campaignId: number;

  constructor(private readonly plan: RenderPlan) {
    this.campaignId = plan.campaignId;
  }

  render(recipient: RecipientData, deliveryId: number | null): Rendered {
    const plan = this.plan;
    const email = recipient.email.trim();
    if (!USABLE_ADDRESS.test(email)) throw new RecipientError(`subscriber ${recipient.subscriberId} has an unusable e-mail address`);
    const values = new Values(plan, recipient);
    const html = plan.html !== null && recipient.htmlEmail ? plan.html : null;
    // A delivery keeps one Message-ID across its attempts; a test send (no delivery) gets a random one.
    const unique = deliveryId === null ? randomHex8() : plan.messageIdToken(deliveryId);
    const messageId = `<c${plan.campaignId}.s${recipient.subscriberId}.${unique}@${plan.host}>`;

    const mail = new Assembler();
    mail.text(typeof plan.headBefore === 'string' ? plan.headBefore : plan.headBefore((slot) => values.text(slot)));
    mail.text(`To: ${email}${CRLF}Date: ${nowHeader()}${CRLF}Message-ID: ${messageId}${CRLF}`);
    mail.text(plan.headAfter);
    // Only the one-click link (RFC 8058): a mailto: part would point at an address nothing reads (docs/api.md).
    if (plan.listUnsubscribe) mail.text(`List-Unsubscribe: <${values.unsubscribeUrl()}>${CRLF}`);
    mail.text(`X-Mailroom-Subscriber: ${recipient.uniqueId.replace(/[\r\n]/g, '')}${CRLF}`);
    if (deliveryId !== null) mail.text(`X-Mailroom-Delivery: ${deliveryId}${CRLF}`);

    const skeleton = html ? html.skeleton : plan.text.skeleton;
    mail.text(skeleton.head);
    mail.body(plan.text.body, values, false);
    if (html) {
      mail.text(skeleton.middle!);
      mail.body(html.body, values, true);
    }
    const raw = mail.finish(skeleton.tail);
    const from = (deliveryId !== null && plan.verpFrom?.(deliveryId)) || plan.envelopeFrom;
    return { message: { from, to: email, raw }, format: html ? 'html' : 'text', messageId };
  }
}
