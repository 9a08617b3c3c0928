import type { AddressObject } from 'mailparser';
import type { AppContext } from '../context.js';
import { requireCampaign } from '../messaging/index.js';
import type { Rights } from '../identity/index.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.js';
import { defaultAsValue, displayAttributeValue, findSubscriberId, loadDefinitionsWithOptions } from '../subscription/index.js';
import type { Preview, PreviewBody } from './campaign-preview.schemas.js';
import { CompileError, compileCampaign, loadRecipients, RecipientError, standInRecipient, type RecipientData } from './compose/index.js';
import { normaliseName } from './compose/placeholders.js';

export const PREVIEW_SUBSCRIBER_NOT_FOUND = 'Subscriber not found.';
const ONE_OF = 'Give one of subscriber_id, email or sample: true.';
export const PREVIEW_NEEDS_SUBSCRIBERS =
  'Previewing for a real subscriber needs the subscribers privilege (it shows their data and working links); preview with sample values instead.';

/** The subscriber a preview is for, by id or address (case-insensitive, on the lower(email) index). */
async function findSubscriber(ctx: AppContext, body: PreviewBody): Promise<number> {
  const id = await findSubscriberId(ctx.db, body.subscriber_id !== undefined ? { id: body.subscriber_id } : { email: body.email!.trim() });
  if (id === undefined) throw new NotFoundError(PREVIEW_SUBSCRIBER_NOT_FOUND);
  return id;
}

const addressText = (value: AddressObject | AddressObject[] | undefined) =>
  value === undefined ? null : (Array.isArray(value) ? value.map((v) => v.text).join(', ') : value.text) || null;

/**
 * The campaign as one subscriber would get it, from the sender's own composer (compileCampaign + render, then the
 * mail parsed back), so the preview cannot drift from what is sent. Links stay as written: nothing is stored in
 * `links`, no open pixel is added, no delivery, event or counter is touched.
 */
export async function previewCampaign(ctx: AppContext, campaignId: number, body: PreviewBody, caller: Rights): Promise<Preview> {
  await requireCampaign(ctx, campaignId);
  const sample = body.sample === true;
  if ([body.subscriber_id !== undefined, body.email !== undefined, sample].filter(Boolean).length !== 1) {
    throw new ValidationError({ subscriber_id: [ONE_OF], email: [ONE_OF], sample: [ONE_OF] });
  }
  // A real subscriber's preview shows their uid, attributes and working links: their data, so that privilege's.
  if (!sample && !caller.superUser && !caller.privileges.subscribers) throw new ForbiddenError(PREVIEW_NEEDS_SUBSCRIBERS);
  const recipient = sample ? await sampleRecipient(ctx) : (await loadRecipients(ctx, [await findSubscriber(ctx, body)]))[0];
  if (!recipient) throw new NotFoundError(PREVIEW_SUBSCRIBER_NOT_FOUND);
  let compiled;
  try {
    compiled = await compileCampaign(ctx, campaignId, { preview: true, sample });
  } catch (err) {
    if (err instanceof CompileError) throw new ConflictError(`The campaign cannot be composed: ${err.message}`);
    throw err;
  }
  let rendered;
  try {
    rendered = compiled.render(recipient, null);
  } catch (err) {
    if (err instanceof RecipientError) throw ValidationError.field('subscriber', "This subscriber's address cannot be written into a mail.");
    throw err;
  }
  // Inline (cid:) images come back as data: URIs, so the preview shows them without a request to the service.
  // Loaded here, by the first preview: 250 ms of CPU at every start of a process that never shows one.
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(Buffer.concat(rendered.message.raw));
  return {
    subscriber: sample ? null : { id: recipient.subscriberId, email: recipient.email },
    subject: mail.subject ?? '',
    from: addressText(mail.from) ?? '',
    reply_to: addressText(mail.replyTo),
    format: rendered.format,
    html: rendered.format === 'html' && typeof mail.html === 'string' ? mail.html : null,
    text: (mail.text ?? '').replace(/\n$/, ''),
  };
}

/**
 * Nobody's data: a sample subscriber whose attributes show each definition's default value, else its first option,
 * else its name, so the placeholders can be seen filled in. Links are made unusable by compileCampaign (`sample`).
 */
async function sampleRecipient(ctx: AppContext): Promise<RecipientData> {
  const definitions = await loadDefinitionsWithOptions(ctx.db);
  // A default is shown as a subscriber's value would be: its option's name, whether given by id or by name.
  const attributes = new Map(
    definitions.map((d) => [normaliseName(d.name), displayAttributeValue(d, defaultAsValue(d)) || d.options[0]?.name || d.name]),
  );
  return standInRecipient({
    uniqueId: '0123456789abcdef0123456789abcdef',
    email: 'sample.subscriber@example.com',
    attributes,
    lists: ['Sample list'],
  });
}
