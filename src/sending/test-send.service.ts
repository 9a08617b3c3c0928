import type { AppContext } from '../context.js';
import { getCampaign, requireCampaign, type Campaign } from '../messaging/index.js';
import { ConflictError, HttpError, NotFoundError, ValidationError } from '../shared/errors.js';
import { CompileError, compileCampaign, loadRecipients } from './compose/index.js';
import * as repo from './test-send.repository.js';
import type { TestSendBody } from './test-send.schemas.js';
import { SendFailure } from './transport.js';

export const SUBSCRIBER_NOT_FOUND = 'Subscriber with email does not exists.';

/**
 * Sends the campaign, as its subscribers would get it, to a few existing subscribers (reference §5.13): no delivery
 * records, no counters, no status change. Unlike phpList any status will do — drafts are what one tests. Every
 * address is checked before anything is sent: unknown → 404, blacklisted → 422 (a blacklisted address is never
 * mailed, a test included). A campaign that cannot be composed (an attachment's file missing) → 409. A mail the
 * server refuses → 502 naming the reply; the ones before it were sent.
 */
export async function testSend(ctx: AppContext, campaignId: number, body: TestSendBody): Promise<Campaign> {
  await requireCampaign(ctx, campaignId);
  const emails = [...new Map(body.emails.map((e) => [e.trim().toLowerCase(), e.trim()])).values()];
  const found = new Map((await repo.subscribersByEmails(ctx.db, emails)).map((s) => [s.email.toLowerCase(), s]));
  if (emails.some((e) => !found.has(e.toLowerCase()))) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
  const listed = await repo.blacklistedEmails(ctx.db, emails);
  const errors: Record<string, string[]> = {};
  body.emails.forEach((email, i) => {
    const key = email.trim().toLowerCase();
    if (listed.has(key) || found.get(key)?.blacklisted) {
      errors[`emails[${i}]`] = ['This address is blacklisted: no mail is sent to it, not even a test.'];
    }
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  let compiled;
  try {
    compiled = await compileCampaign(ctx, campaignId, { test: true });
  } catch (err) {
    // The campaign's own state is broken (an attachment's file is gone): nothing the request could change.
    if (err instanceof CompileError) throw new ConflictError(`The campaign cannot be composed: ${err.message}`);
    throw err;
  }
  const recipients = await loadRecipients(
    ctx,
    emails.map((e) => found.get(e.toLowerCase())!.id),
  );
  for (const recipient of recipients) {
    try {
      await ctx.transport.send(compiled.render(recipient, null).message);
    } catch (err) {
      if (err instanceof SendFailure) {
        throw new HttpError(502, `The mail server did not accept the test mail to ${recipient.email}: ${err.response}`);
      }
      throw err;
    }
  }
  ctx.log.info({ campaignId, recipients: recipients.length }, 'test mail sent');
  return getCampaign(ctx, campaignId);
}
