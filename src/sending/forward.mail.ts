import { escapeHtml } from '../shared/html.js';
import type { AppContext } from '../context.js';
import { compileCampaign, RecipientError, standInRecipient, type CompiledCampaign, type RecipientData } from './compose/index.js';
import { SendFailure } from './transport.js';

/*
 * The forwarded copy: the campaign compiled as a forward (no click tracking, no open pixel, no List-Unsubscribe:
 * the friend is not a subscriber, and nothing in it may act for the forwarder), rendered for the friend with the
 * unique id `forwarded` (reference §7.3), with a short introduction and the note above the content.
 */

export interface ForwardMail {
  readonly friends: readonly string[];
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

/**
 * Sends one copy per friend, one after the other (a handful at most). Never throws: answers the friends whose copy
 * did not leave, with the reason (`precache_failed`, `send_failed`); the rest were sent.
 */
export async function sendForwardedCopies(ctx: AppContext, campaignId: number, mail: ForwardMail): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  if (mail.friends.length === 0) return failures;
  let compiled: CompiledCampaign;
  try {
    compiled = await compileCampaign(ctx, campaignId, { forward: { by: mail.forwarderEmail, intro: introOf(mail) } });
  } catch (err) {
    ctx.log.warn({ campaignId, err: (err as Error).message }, 'forwarded copy could not be composed');
    for (const friend of mail.friends) failures.set(friend, 'precache_failed');
    return failures;
  }
  for (const friend of mail.friends) {
    try {
      await ctx.transport.send(compiled.render(friendOf(friend), null).message);
    } catch (err) {
      // Whatever went wrong, the reserved record must still be settled: the friend's copy counts as failed.
      const expected = err instanceof SendFailure || err instanceof RecipientError;
      // The server's reply can quote the friend's address: only its code goes to the log.
      const detail = err instanceof SendFailure ? err.response.slice(0, 3) : (err as Error).name;
      ctx.log[expected ? 'warn' : 'error']({ campaignId, reply: detail }, 'forwarded copy not sent');
      failures.set(friend, 'send_failed');
    }
  }
  return failures;
}
