import { escapeHtml } from '../shared/html.js';
import type { AppContext } from '../context.js';
import type { RawMailToQueue } from '../mail/index.js';
import { compileCampaign, standInRecipient, type CompiledCampaign, type RecipientData } from './compose/index.js';

/*
 * The forwarded copy: the campaign compiled as a forward (no click tracking, no open pixel, no List-Unsubscribe:
 * the friend is not a subscriber, and nothing in it may act for the forwarder), rendered for the friend with the
 * unique id `forwarded` (reference §7.3), with a short introduction and the note above the content.
 */

export interface ForwardMail {
  readonly fromName: string;
  readonly fromEmail: string;
  /** The forwarding subscriber's address: `[FORWARDEDBY]`. */
  readonly forwarderEmail: string;
  readonly note: string | null;
}

/** HTML-escaped, and brackets too, so nothing a forwarder writes can act as a placeholder. */
const escapeNote = (text: string) => escapeHtml(text).replace(/[[\]]/g, (c) => (c === '[' ? '&#91;' : '&#93;'));

/** The introduction in both forms. The HTML one has no `[`, so nothing in a note can act as a placeholder. */
export function introOf(mail: Pick<ForwardMail, 'fromName' | 'fromEmail' | 'note'>): { text: string; html: string } {
  const who = `${mail.fromName} <${mail.fromEmail}>`;
  const note = mail.note ? mail.note.replace(/\r\n?/g, '\n') : null;
  const text = `${who} forwarded this message to you.\n\n` + (note ? `${note}\n\n` : '') + `${'-'.repeat(40)}\n\n`;
  const html =
    '<div style="margin:0 0 16px;padding:12px;border-bottom:1px solid #ccc;font-family:sans-serif">' +
    `<p style="margin:0 0 8px">${escapeNote(who)} forwarded this message to you.</p>` +
    (note ? `<p style="margin:0;white-space:pre-wrap">${escapeNote(note)}</p>` : '') +
    '</div>';
  return { text, html };
}

function friendOf(email: string): RecipientData {
  // No subscriber: the copy's tracked links (if any) and bounces lead to nobody.
  return standInRecipient({ uniqueId: 'forwarded', email, attributes: new Map(), lists: [] });
}

/** Renders the forwarded copy for one friend: the finished message and its envelope, ready for the mail queue. */
export type ForwardCopies = (friend: string) => RawMailToQueue;

/**
 * Compiles the campaign as a forward once per request. Answers null (logged) when it cannot be composed: every copy
 * is then `precache_failed`.
 */
export async function composeForwardedCopies(ctx: AppContext, campaignId: number, mail: ForwardMail): Promise<ForwardCopies | null> {
  let compiled: CompiledCampaign;
  try {
    compiled = await compileCampaign(ctx, campaignId, { forward: { by: mail.forwarderEmail, intro: introOf(mail) } });
  } catch (err) {
    ctx.log.warn({ campaignId, err: (err as Error).message }, 'forwarded copy could not be composed');
    return null;
  }
  return (friend) => {
    const { message } = compiled.render(friendOf(friend), null);
    return { envelope: { from: message.from, to: message.to }, raw: Buffer.concat(message.raw) };
  };
}
