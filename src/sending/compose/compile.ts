import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import {
  attachmentStorage,
  findCampaign,
  findTemplate,
  imagesOf,
  listCampaignAttachments,
  scanTemplateHtml,
  type CampaignRow,
} from '../../messaging/index.js';
import { confirmationLink, unsubscribeUrl } from '../../subscription/index.js';
import { attributeNames, firstListOf, upsertLinks } from './compose.repository.js';
import { afterBodyStart, mergeContent } from './content.js';
import { forwardUrlMaker } from '../forward-link.js';
import { preferencesUrlMaker } from '../preferences-link.js';
import { linkTokenSigner, messageIdSigner, unsubscribeTokenSigner } from './tokens.js';
import { verpSender } from '../../mail/index.js';
import { TrackedUrls, trackHtmlLinks, trackTextLinks } from './links.js';
import { fromAndSubject } from './header-text.js';
import { CRLF, SOFT_BREAK, encodeQuotedPrintable, header, mailbox } from './mime.js';
import { compileBody, escapeHtml, normaliseName, oneByte, type CompiledBody, type Part, type Resolution, type SlotKind } from './placeholders.js';
import { CampaignRenderer } from './render.js';
import { htmlSkeleton, textSkeleton, type StaticPart } from './skeleton.js';
import { CompileError, type CompiledCampaign } from './types.js';

/*
 * Compiling a campaign: everything about its mails that does not depend on the recipient, done once — template
 * merge, footer, text part, tracked links (stored in `links`), placeholders cut into slots, static headers, the MIME
 * skeleton with attachments read from storage and base64-encoded. Rendering (render.ts) is then string joins.
 */

/** Placeholders filled per recipient (reference §7.3), by normalised name. */
export const SLOTS: Record<string, SlotKind> = {
  EMAIL: 'email',
  USERID: 'uniqueId',
  UNIQID: 'uniqueId',
  UUID: 'uniqueId',
  CONFIRMED: 'confirmed',
  OPTEDIN: 'confirmed',
  BLACKLISTED: 'blacklisted',
  DISABLED: 'disabled',
  HTMLEMAIL: 'htmlEmail',
  BOUNCECOUNT: 'bounceCount',
  ENTERED: 'entered',
  MODIFIED: 'modified',
  UNSUBSCRIBEURL: 'unsubscribeUrl',
  BLACKLISTURL: 'unsubscribeUrl',
  PREFERENCESURL: 'preferencesUrl',
  CONFIRMATIONURL: 'confirmationUrl',
  FORWARDURL: 'forwardUrl',
  LISTS: 'lists',
};

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `Name <addr>` or `addr` (a legacy row may quote the name) → its parts. */
function parseMailbox(value: string): { name: string; address: string } {
  const named = /^(.*?)\s*<([^<>]+)>\s*$/.exec(value.trim());
  if (!named) return { name: '', address: value.trim() };
  return { name: named[1]!.trim().replace(/^"(.*)"$/, '$1'), address: named[2]!.trim() };
}

async function attachmentsOf(ctx: AppContext, campaignId: number): Promise<StaticPart[]> {
  const storage = attachmentStorage(ctx);
  const parts: StaticPart[] = [];
  for (const row of await listCampaignAttachments(ctx.db, campaignId)) {
    const stream = await storage.open(row.contentHash);
    if (!stream) throw new CompileError(`The file of attachment ${row.id} ("${row.filename}") is missing from storage.`);
    parts.push({ filename: row.filename, mimeType: row.mimeType, data: await readAll(stream) });
  }
  return parts;
}

/**
 * The template's embedded (`data:`) images as inline parts, their `src` in the HTML pointed at `cid:` references.
 * Template image rows are stored in the order the template's images appear (template.service re-extracts them on
 * every write), so row i belongs to the i-th distinct image of the template's HTML.
 */
async function inlineImages(ctx: AppContext, campaign: CampaignRow, templateId: number, templateHtml: string, html: string, host: string) {
  const rows = (await imagesOf(ctx.db, [templateId])).get(templateId) ?? [];
  const parts: StaticPart[] = [];
  scanTemplateHtml(templateHtml).images.forEach((image, i) => {
    const row = rows[i];
    if (!image.src.startsWith('data:') || !row?.data || row.data.length === 0) return;
    const contentId = `image${i + 1}.${campaign.uniqueId}@${host}`;
    const before = html;
    html = html.split(`"${image.src}"`).join(`"cid:${contentId}"`).split(`'${image.src}'`).join(`'cid:${contentId}'`);
    if (html !== before) {
      parts.push({ filename: row.filename ?? `image-${i + 1}`, mimeType: row.mimeType ?? 'application/octet-stream', data: row.data, contentId });
    }
  });
  return { html, parts };
}

/**
 * A forwarded copy (sending/forward.mail.ts): no click tracking, no open pixel, no List-Unsubscribe (the friend is
 * not a subscriber), `[FORWARDEDBY]` filled, and an introduction above the content. `intro.html` must contain no `[`
 * (it is placed before placeholders are read); `intro.text` is put in front already encoded, never read for them.
 */
export interface ForwardCopy {
  readonly by: string;
  readonly intro: { readonly text: string; readonly html: string };
}

/** A body with static text in front of it. */
function withPrefix(body: CompiledBody, prefix: string): CompiledBody {
  const first = oneByte(`${encodeQuotedPrintable(prefix)}${SOFT_BREAK}${body.pieces[0]!}`);
  return { ...body, pieces: [first, ...body.pieces.slice(1)] };
}

/** What the link placeholders and `[USERTRACK]` stand for, in each part (reference §7.3). */
const COMPOSITES: Record<string, { readonly html: string; readonly text: string }> = {
  UNSUBSCRIBE: { html: '<a href="[UNSUBSCRIBEURL]">Unsubscribe</a>', text: '[UNSUBSCRIBEURL]' },
  BLACKLIST: { html: '<a href="[UNSUBSCRIBEURL]">Unsubscribe</a>', text: '[UNSUBSCRIBEURL]' },
  PREFERENCES: { html: '<a href="[PREFERENCESURL]">Update your preferences</a>', text: '[PREFERENCESURL]' },
  FORWARD: { html: '<a href="[FORWARDURL]">Forward this message</a>', text: '[FORWARDURL]' },
};

/**
 * Spells out the placeholders that are markup around a value (`[UNSUBSCRIBE]` is a link to `[UNSUBSCRIBEURL]`,
 * `[USERTRACK]` the pixel around `[UNIQID]`) before slots are cut, so that the markup is encoded once per campaign
 * and only the short value per recipient.
 */
function expandComposites(source: string, part: Part, pixel: string): string {
  return source.replace(/\[\s*(UNSUBSCRIBE|BLACKLIST|PREFERENCES|FORWARD|USERTRACK)\s*(?:%%[^[\]\r\n]*)?\]/gi, (_, name: string) => {
    const upper = name.toUpperCase();
    if (upper === 'USERTRACK') return part === 'html' ? pixel : '';
    return COMPOSITES[upper]![part];
  });
}

/** Names compileCampaign fills with the same text for everyone, or spells out as markup (reference §7.3). */
const STATIC_NAMES = ['MESSAGEID', 'SUBJECT', 'WEBSITE', 'DOMAIN', 'FORWARDEDBY', 'SIGNATURE', 'FORWARDFORM'];
const COMPOSITE_NAMES = ['UNSUBSCRIBE', 'BLACKLIST', 'PREFERENCES', 'FORWARD', 'USERTRACK'];
/** Every placeholder name a campaign may use besides the attributes' (`CONTENT` and `FOOTER` belong to templates). */
export const KNOWN_PLACEHOLDERS: ReadonlySet<string> = new Set([...Object.keys(SLOTS), ...STATIC_NAMES, ...COMPOSITE_NAMES, 'CONTENT', 'FOOTER']);

/**
 * Compiles a campaign for sending (or, with `test`, for a test send: the subject gets `(test) `). With `preview`
 * (the console's preview): links stay as written (no tracked links stored), no open pixel, no attachments read.
 */
export async function compileCampaign(
  ctx: AppContext,
  campaignId: number,
  options: { test?: boolean; forward?: ForwardCopy; preview?: boolean; sample?: boolean } = {},
): Promise<CompiledCampaign> {
  const { forward, preview } = options;
  const campaign = await findCampaign(ctx.db, campaignId);
  if (!campaign) throw new CompileError(`Campaign ${campaignId} does not exist.`);
  const { publicUrl } = ctx.config;
  const host = new URL(publicUrl).hostname;
  const template = campaign.templateId === null ? undefined : await findTemplate(ctx.db, campaign.templateId);
  const attachments = preview ? [] : await attachmentsOf(ctx, campaignId);
  const attributes = new Set((await attributeNames(ctx.db)).map(normaliseName));
  const list = await firstListOf(ctx.db, campaignId);

  const { html, text, inline, linkIds } = await composeBodies(ctx, campaign, template, host, options);
  const subject = `${options.test ? '(test) ' : ''}${campaign.subject}`;
  const resolve = placeholderResolver({ campaignId, subject, host, forwardedBy: forward?.by, attributes });
  const from = parseMailbox(campaign.fromField.trim() || ctx.settings.current.mailFrom);
  const boundary = `=_mr${campaignId}_${randomBytes(6).toString('hex')}`;
  const boundaries = { mixed: `${boundary}_m`, related: `${boundary}_r`, alternative: `${boundary}_a` };
  const secret = ctx.secrets.linkToken;
  const signUnsubscribe = unsubscribeTokenSigner(secret, campaignId);

  return new CampaignRenderer({
    campaignId,
    host,
    // BOUNCE_ADDRESS: bounces go where they are read, not to the From address.
    envelopeFrom: ctx.config.bounceAddress || from.address,
    // BOUNCE_VERP: the bounce names its delivery whatever the remote server kept of the message (a test send, with
    // no delivery, goes from BOUNCE_ADDRESS itself).
    verpFrom: ctx.config.bounceVerp && ctx.config.bounceAddress ? verpSender(secret, ctx.config.bounceAddress) : null,
    messageIdToken: messageIdSigner(secret),
    headBefore: fromAndSubject(from, subject, resolve('text')),
    headAfter: headersAfterSubject(campaign, list, host, !forward, ctx.settings.current.replyTo),
    html: html === null ? null : { body: compileBody(html, resolve('html')), skeleton: htmlSkeleton(boundaries, inline, attachments) },
    text: {
      body: forward ? withPrefix(compileBody(text, resolve('text')), forward.intro.text) : compileBody(text, resolve('text')),
      skeleton: textSkeleton(boundaries, attachments),
    },
    listUnsubscribe: !forward,
    linkIds,
    publicUrl,
    signLink: linkTokenSigner(secret),
    unsubscribeUrl: (uniqueId) => {
      const token = signUnsubscribe(uniqueId);
      return token === null ? unsubscribeUrl(ctx, uniqueId, campaignId) : `${publicUrl}/api/v2/unsubscribe/${token}`;
    },
    preferencesUrl: preferencesUrlMaker(ctx),
    forwardUrl: forwardUrlMaker(ctx, campaignId),
    confirmationUrl: (uniqueId) => confirmationLink(ctx, uniqueId),
    // The preview with sample values: links that show where they go and can never work (`.invalid` never resolves).
    ...(options.sample ? SAMPLE_LINKS : {}),
  });
}

const sampleLink = (what: string) => () => `https://sample.invalid/${what}`;
const SAMPLE_LINKS = {
  unsubscribeUrl: sampleLink('unsubscribe'),
  preferencesUrl: sampleLink('preferences'),
  forwardUrl: sampleLink('forward'),
  confirmationUrl: sampleLink('confirm'),
};

interface ComposedBodies {
  /** Null for a text-only campaign. */
  readonly html: string | null;
  readonly text: string;
  /** The template's embedded images, now referenced by `cid:` from the HTML. */
  readonly inline: StaticPart[];
  /** The stored id of each tracked link, in the order the link tokens are numbered. */
  readonly linkIds: number[];
}

/**
 * The two bodies as every recipient gets them, before placeholders are cut into slots: content merged into the
 * template, embedded images made inline parts, a forward's introduction put in, links tracked (not in a forwarded
 * copy nor a preview) and stored, and the composite placeholders spelled out.
 */
async function composeBodies(
  ctx: AppContext,
  campaign: CampaignRow,
  template: { readonly id: number; readonly content: string | null; readonly text: string | null } | undefined,
  host: string,
  { forward, preview }: { forward?: ForwardCopy; preview?: boolean },
): Promise<ComposedBodies> {
  const { publicUrl } = ctx.config;
  const merged = mergeContent({
    textOnly: campaign.sendFormat === 'text',
    body: campaign.body,
    textBody: campaign.textBody,
    footer: campaign.footer,
    templateHtml: template?.content ?? null,
    templateText: template?.text ?? null,
  });
  let html = merged.html;
  let text = merged.text;
  let inline: StaticPart[] = [];
  if (html !== null && template?.content) {
    ({ html, parts: inline } = await inlineImages(ctx, campaign, template.id, template.content, html, host));
  }
  if (forward && html !== null) html = afterBodyStart(html, forward.intro.html);
  const urls = new TrackedUrls();
  if (campaign.clickTrack && !forward && !preview) {
    if (html !== null) html = trackHtmlLinks(html, publicUrl, urls);
    text = trackTextLinks(text, publicUrl, urls);
  }
  const linkIds = await storeTrackedLinks(ctx, campaign.id, urls);

  // Forwarded copies carry no open pixel: the friend is not a subscriber. A preview records no open either.
  const pixel =
    forward || preview ? '' : `<img src="${escapeHtml(publicUrl)}/api/v2/t/open.gif?u=[UNIQID]&amp;m=${campaign.id}" width="1" height="1" alt="">`;
  if (html !== null) html = expandComposites(html, 'html', pixel);
  text = expandComposites(text, 'text', '');
  return { html, text, inline, linkIds };
}

/** Stores the campaign's tracked links (existing ones keep their ids) and answers their ids in `urls` order. */
async function storeTrackedLinks(ctx: AppContext, campaignId: number, urls: TrackedUrls): Promise<number[]> {
  const stored = await upsertLinks(ctx.db, campaignId, urls.urls);
  return urls.urls.map((url) => {
    const id = stored.get(url);
    if (id === undefined) throw new CompileError(`Tracked link ${url} was not stored.`);
    return id;
  });
}

/**
 * What each placeholder name becomes in one part: a per-recipient slot, text that is the same for everyone (escaped
 * for HTML in the HTML part), an attribute's slot, or null for a name that is not a placeholder (left as written).
 */
function placeholderResolver(campaign: {
  readonly campaignId: number;
  readonly subject: string;
  readonly host: string;
  /** Set for a forwarded copy: who forwarded it. */
  readonly forwardedBy: string | undefined;
  readonly attributes: ReadonlySet<string>;
}): (part: Part) => (name: string) => Resolution {
  const { campaignId, subject, host, forwardedBy, attributes } = campaign;
  return (part) => (name) => {
    const slot = SLOTS[name];
    if (slot) return { slot };
    const escape = part === 'html' ? escapeHtml : (v: string) => v;
    switch (name) {
      case 'MESSAGEID':
        return { static: String(campaignId) };
      case 'SUBJECT':
        return { static: escape(subject) };
      case 'WEBSITE':
      case 'DOMAIN':
        return { static: escape(host) };
      case 'FORWARDEDBY':
        return { static: forwardedBy !== undefined ? escape(forwardedBy) : '' };
      case 'SIGNATURE':
      case 'FORWARDFORM':
        return { static: '' };
    }
    return attributes.has(name) ? { slot: 'attribute', key: name } : null;
  };
}

/**
 * The headers after From and Subject, the same in every mail of the campaign. A forwarded copy offers no one-click
 * unsubscribe (`oneClickUnsubscribe` false): the friend is not a subscriber.
 */
function headersAfterSubject(
  campaign: CampaignRow,
  list: { readonly id: number; readonly name: string } | undefined,
  host: string,
  oneClickUnsubscribe: boolean,
  /** The settings' Reply-To, for a campaign that names none ('' for none). */
  defaultReplyTo: string,
): string {
  const replyTo = campaign.replyTo.trim() ? parseMailbox(campaign.replyTo) : defaultReplyTo ? parseMailbox(defaultReplyTo) : null;
  // RFC 2919: the list's name as the phrase; a campaign without lists yet (a test of a draft) names itself.
  const listId = list ? mailbox(list.name, `${list.id}.${host}`) : `<campaign-${campaign.id}.${host}>`;
  const headers = [
    ...(replyTo ? [header('Reply-To', mailbox(replyTo.name, replyTo.address))] : []),
    'MIME-Version: 1.0',
    header('List-Id', listId),
    ...(oneClickUnsubscribe ? ['List-Unsubscribe-Post: List-Unsubscribe=One-Click'] : []),
    'Precedence: bulk',
    `X-Mailroom-Campaign: ${campaign.id}`,
  ];
  return headers.map((h) => h + CRLF).join('');
}
