import type { AppContext } from '../context.js';
import { TooManyRequestsError, UnprocessableError, ValidationError } from '../shared/errors.js';
import { findSubscriberByUniqueId } from '../subscription/index.js';
import * as repo from './forward.repository.js';
import type { ForwardBody, ForwardResult, ForwardStatus } from './forward.schemas.js';
import { composeForwardedCopies, type ForwardCopies } from './forward.mail.js';
import { RecipientError } from './compose/index.js';
import { mailQueued, queueRawMails, type RawMailToQueue } from '../mail/index.js';

/*
 * Forward to a friend (reference §5.17): a subscriber who was sent a campaign sends a copy to a few addresses,
 * with a note. The copy carries no tracking and no unsubscribe link of the forwarder's; the friend is not subscribed.
 * The limits and the friends' addresses are checked at once; each copy is then queued (mail/mail-queue.ts) in the
 * transaction that records it, and leaves after the answer, retried while the mail server is away.
 */

export const NOT_RECEIVED = 'Cannot forward: user has not received this message';
const WINDOW_MS = 24 * 60 * 60 * 1000;

interface Outcome {
  email: string;
  status: ForwardStatus;
  reason: string | null;
}

/** Distinct addresses (case-insensitively), first spelling kept, in request order. */
function distinct(addresses: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const address of addresses) {
    const trimmed = address.trim();
    if (!seen.has(trimmed.toLowerCase())) seen.set(trimmed.toLowerCase(), trimmed);
  }
  return [...seen.values()];
}

/** The configured limits on a request (422 in phpList's words). */
function checkLimits(ctx: AppContext, recipients: string[], note: string | null | undefined): void {
  const { emailCount, personalNoteSize } = ctx.config.forward;
  const errors: Record<string, string[]> = {};
  if (recipients.length > emailCount) errors.recipients = [`You can forward to at most ${emailCount} recipients.`];
  // phpList allows twice the configured size; 0 means no limit.
  const noteMax = personalNoteSize * 2;
  if (personalNoteSize > 0 && note && note.length > noteMax) {
    errors.note = [`Your personal note must be at most ${noteMax} characters long.`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** 429 when sending `wanted` more copies would pass the subscriber's allowance for 24 hours. */
function checkRate(ctx: AppContext, times: Date[], wanted: number, now: number): void {
  const limit = ctx.config.forward.rateLimit;
  if (wanted === 0 || times.length + wanted <= limit) return;
  // The moment enough of the counted forwards have left the window for this request to fit.
  const mustExpire = times.length + wanted - limit;
  const freedAt = wanted > limit ? undefined : times[mustExpire - 1];
  const retryAfter = freedAt ? (freedAt.getTime() + WINDOW_MS - now) / 1000 : WINDOW_MS / 1000;
  throw new TooManyRequestsError(`Forward limit reached: a subscriber may forward at most ${limit} messages in 24 hours.`, retryAfter);
}

export async function forward(ctx: AppContext, campaignId: number, body: ForwardBody): Promise<ForwardResult> {
  const recipients = distinct(body.recipients);
  checkLimits(ctx, recipients, body.note);
  const forwarder = await findSubscriberByUniqueId(ctx.db, body.uid.trim());
  if (!forwarder || !(await repo.received(ctx.db, campaignId, forwarder.id))) throw new UnprocessableError(NOT_RECEIVED);

  // Composed before the transaction (it reads the campaign, its template and attachments), rendered per friend in it.
  const copyFor = await composeForwardedCopies(ctx, campaignId, {
    fromName: body.from_name.trim(),
    fromEmail: body.from_email.trim(),
    forwarderEmail: forwarder.email,
    note: body.note?.trim() || null,
  });

  const outcomes = new Map<string, Outcome>();
  // One short transaction decides what goes, records it and queues the copies: a concurrent request sees the record,
  // and a copy is queued exactly when its record says `sent`. The mail queue sends it after the answer.
  const queued = await ctx.db.transaction(async (tx) => {
    await repo.lockForward(tx, campaignId, forwarder.id);
    const lowered = recipients.map((r) => r.toLowerCase());
    const [already, blocked] = await Promise.all([repo.alreadyForwarded(tx, campaignId, lowered), repo.blacklistedAmong(tx, lowered)]);
    const fresh = recipients.filter((r) => !already.has(r.toLowerCase()));
    const now = Date.now();
    const times = await repo.forwardTimes(tx, forwarder.id, new Date(now - WINDOW_MS), ctx.config.forward.rateLimit + recipients.length);
    checkRate(ctx, times, fresh.length, now);

    const copies: RawMailToQueue[] = [];
    for (const email of recipients) {
      if (already.has(email.toLowerCase())) outcomes.set(email, { email, status: 'already_sent', reason: null });
      else if (blocked.has(email.toLowerCase())) outcomes.set(email, { email, status: 'failed', reason: 'blacklisted' });
      else if (!copyFor) outcomes.set(email, { email, status: 'failed', reason: 'precache_failed' });
      else {
        const copy = renderCopy(ctx, campaignId, copyFor, email);
        if (copy) copies.push(copy);
        outcomes.set(email, copy ? { email, status: 'sent', reason: null } : { email, status: 'failed', reason: 'send_failed' });
      }
    }
    await repo.insertForwards(
      tx,
      fresh.map((email) => ({ campaignId, subscriberId: forwarder.id, email, status: outcomes.get(email)!.status })),
    );
    await queueRawMails(ctx, tx, 'forward', copies);
    await repo.countForwards(tx, campaignId, copies.length);
    return copies.length;
  });
  if (queued > 0) mailQueued(ctx);

  const list = recipients.map((email) => outcomes.get(email)!);
  const count = (status: ForwardStatus) => list.filter((o) => o.status === status).length;
  ctx.log.info({ campaignId, subscriberId: forwarder.id, queued, failed: count('failed') }, 'campaign forwarded');
  return {
    total_requested: list.length,
    total_sent: count('sent'),
    total_failed: count('failed'),
    total_already_sent: count('already_sent'),
    recipients: list,
  };
}

/** The friend's copy, or null when it cannot be rendered for this address (logged without the address). */
function renderCopy(ctx: AppContext, campaignId: number, copyFor: ForwardCopies, friend: string): RawMailToQueue | null {
  try {
    return copyFor(friend);
  } catch (err) {
    if (!(err instanceof RecipientError)) throw err;
    ctx.log.warn({ campaignId }, 'forwarded copy not rendered: unusable address');
    return null;
  }
}
