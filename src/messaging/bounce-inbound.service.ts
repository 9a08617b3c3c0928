import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.js';
import { processBounce } from './bounce-processing.js';
import type { InboundBounceResult } from './bounce-inbound.schemas.js';
import { MessageFormatError } from './mime.js';

export const INBOUND_OFF = 'Receiving bounces over HTTP is off: set BOUNCE_INBOUND_TOKEN to turn it on.';
export const INBOUND_DENIED = 'A valid bounce token is required, as "Authorization: Bearer <token>" or "X-Bounce-Token: <token>".';

/** One address, nothing around it; an empty value is as if none was given. */
const ENVELOPE_ADDRESS = /^(|[^\s@<>,;"]{1,256}@[^\s@<>,;"]{1,255})$/;

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The endpoint's own credential (not a session: the caller is a mail server's pipe or a relay's webhook).
 * Off (404) without a configured token; compared in constant time.
 */
export function checkInboundToken(ctx: AppContext, authorization: string | undefined, header: string | string[] | undefined): void {
  const expected = ctx.config.bounces.inboundToken;
  if (!expected) throw new NotFoundError(INBOUND_OFF);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const given = bearer ?? (typeof header === 'string' ? header.trim() : undefined);
  if (!given || given.length > 1024 || !timingSafeEqual(digest(given), digest(expected))) throw new ForbiddenError(INBOUND_DENIED);
}

/** Processes one raw message posted to the endpoint; bytes that are no e-mail are a 422 saying why. */
export async function receiveBounce(ctx: AppContext, body: unknown, recipient?: unknown): Promise<InboundBounceResult> {
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw ValidationError.field('body', 'Send the bounce message itself (RFC 5322) as the request body.');
  }
  // Checked here: the route's validation is off (its body is bytes). An address, as the pipe's ${recipient} gives it.
  if (recipient !== undefined && (typeof recipient !== 'string' || recipient.length > 320 || !ENVELOPE_ADDRESS.test(recipient))) {
    throw ValidationError.field(
      'recipient',
      'recipient must be the one e-mail address the bounce was delivered to (at most 320 characters), e.g. bounces+token@example.com.',
    );
  }
  let outcome;
  try {
    outcome = await processBounce(ctx, body, 'http', undefined, recipient || undefined);
  } catch (err) {
    if (err instanceof MessageFormatError) throw ValidationError.field('body', err.message);
    throw err;
  }
  return {
    id: outcome.id,
    status: outcome.status,
    kind: outcome.kind,
    campaign_id: outcome.campaignId,
    subscriber_id: outcome.subscriberId,
    matched_by: outcome.matchedBy,
    rule_id: outcome.ruleId,
    duplicate: outcome.duplicate,
    actions: [...outcome.actions],
  };
}
