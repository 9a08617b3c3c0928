import type { AppContext } from '../context.js';
import { TooManyRequestsError, UnprocessableError, ValidationError } from '../shared/errors.js';
import { findSubscriberByUniqueId } from '../subscription/index.js';
import * as repo from './forward.repository.js';
import type { ForwardBody, ForwardResult, ForwardStatus } from './forward.schemas.js';
import { sendForwardedCopies } from './forward.mail.js';

/*
 * Forward to a friend (reference §5.17): a subscriber who was sent a campaign sends a copy to a few addresses,
 * with a note. The copy carries no tracking and no unsubscribe link of the forwarder's; the friend is not subscribed.
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

  const outcomes = new Map<string, Outcome>();
  // Reserve: decide in one short transaction what goes, and record it as `sending`, so that a concurrent request
  // sees it; the mail itself is sent outside any transaction.
  const reserved = await ctx.db.transaction(async (tx) => {
    await repo.lockForward(tx, campaignId, forwarder.id);
    const lowered = recipients.map((r) => r.toLowerCase());
    const [already, blocked] = await Promise.all([repo.alreadyForwarded(tx, campaignId, lowered), repo.blacklistedAmong(tx, lowered)]);
    const fresh = recipients.filter((r) => !already.has(r.toLowerCase()));
    const now = Date.now();
    const times = await repo.forwardTimes(tx, forwarder.id, new Date(now - WINDOW_MS), ctx.config.forward.rateLimit + recipients.length);
    checkRate(ctx, times, fresh.length, now);
    for (const email of recipients) {
      if (already.has(email.toLowerCase())) outcomes.set(email, { email, status: 'already_sent', reason: null });
      else if (blocked.has(email.toLowerCase())) outcomes.set(email, { email, status: 'failed', reason: 'blacklisted' });
    }
    return repo.insertForwards(
      tx,
      fresh.map((email) => ({
        campaignId,
        subscriberId: forwarder.id,
        email,
        status: blocked.has(email.toLowerCase()) ? 'failed' : 'sending',
      })),
    );
  });

  const toSend = reserved.filter((r) => !outcomes.has(r.email));
  const failures = await sendForwardedCopies(ctx, campaignId, {
    friends: toSend.map((r) => r.email),
    fromName: body.from_name.trim(),
    fromEmail: body.from_email.trim(),
    forwarderEmail: forwarder.email,
    note: body.note?.trim() || null,
  });
  const sentIds: number[] = [];
  const failedIds: number[] = [];
  for (const row of toSend) {
    const failure = failures.get(row.email);
    (failure ? failedIds : sentIds).push(row.id);
    outcomes.set(row.email, failure ? { email: row.email, status: 'failed', reason: failure } : { email: row.email, status: 'sent', reason: null });
  }
  await ctx.db.transaction((tx) => repo.finishForwards(tx, campaignId, sentIds, failedIds));
  ctx.log.info({ campaignId, subscriberId: forwarder.id, sent: sentIds.length, failed: failedIds.length }, 'campaign forwarded');

  const list = recipients.map((email) => outcomes.get(email)!);
  const count = (status: ForwardStatus) => list.filter((o) => o.status === status).length;
  return {
    total_requested: list.length,
    total_sent: count('sent'),
    total_failed: count('failed'),
    total_already_sent: count('already_sent'),
    recipients: list,
  };
}
