import { simpleParser, type AddressObject } from 'mailparser';
import type { AppContext } from '../context.js';
import { requireCampaign } from '../messaging/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { findSubscriberId } from '../subscription/index.js';
import type { Preview, PreviewBody } from './campaign-preview.schemas.js';
import { CompileError, compileCampaign, loadRecipients, RecipientError } from './compose/index.js';

export const PREVIEW_SUBSCRIBER_NOT_FOUND = 'Subscriber not found.';
const ONE_OF = 'Give either subscriber_id or email.';

/** The subscriber a preview is for, by id or address (case-insensitive, on the lower(email) index). */
async function findSubscriber(ctx: AppContext, body: PreviewBody): Promise<number> {
  if ((body.subscriber_id === undefined) === (body.email === undefined)) {
    throw new ValidationError({ subscriber_id: [ONE_OF], email: [ONE_OF] });
  }
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
export async function previewCampaign(ctx: AppContext, campaignId: number, body: PreviewBody): Promise<Preview> {
  await requireCampaign(ctx, campaignId);
  const subscriberId = await findSubscriber(ctx, body);
  const [recipient] = await loadRecipients(ctx, [subscriberId]);
  if (!recipient) throw new NotFoundError(PREVIEW_SUBSCRIBER_NOT_FOUND);
  let compiled;
  try {
    compiled = await compileCampaign(ctx, campaignId, { preview: true });
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
  const mail = await simpleParser(Buffer.concat(rendered.message.raw));
  return {
    subscriber: { id: recipient.subscriberId, email: recipient.email },
    subject: mail.subject ?? '',
    from: addressText(mail.from) ?? '',
    reply_to: addressText(mail.replyTo),
    format: rendered.format,
    html: rendered.format === 'html' && typeof mail.html === 'string' ? mail.html : null,
    text: (mail.text ?? '').replace(/\n$/, ''),
  };
}
