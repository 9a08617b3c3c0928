import type { AppContext } from '../context.js';
import { subscriberTokenSigner } from './compose/tokens.js';
import { decodeSubscriberToken, encodeSubscriberToken } from '../subscription/index.js';

/*
 * Forward-to-a-friend links: `PUBLIC_URL/forward/<token>`, the `[FORWARDURL]` of campaign mail, naming the campaign
 * and the subscriber it was sent to, signed like the unsubscribe token (subscription/unsubscribe-token.ts) under its own
 * domain label. Before issue 13 the link carried the bare unique id (`/api/v2/email-forward/<id>?uid=`); the JSON
 * API keeps taking that, the page takes only signed links.
 */

export const FORWARD_DOMAIN = Buffer.from('mailroom/forward\0');

export interface ForwardTarget {
  readonly uniqueId: string;
  readonly campaignId: number;
}

export function encodeForwardToken(secret: string, target: ForwardTarget): string {
  return encodeSubscriberToken(secret, FORWARD_DOMAIN, { uniqueId: target.uniqueId, number: target.campaignId });
}

export function decodeForwardToken(secret: string, token: string): ForwardTarget | null {
  const decoded = decodeSubscriberToken(secret, FORWARD_DOMAIN, token);
  if (!decoded || decoded.number < 1 || decoded.number > 2_147_483_647) return null;
  return { uniqueId: decoded.uniqueId, campaignId: decoded.number };
}

/** For a campaign's recipients: one fast signer per compile, falling back to the slow path for other unique ids. */
export function forwardUrlMaker(ctx: Pick<AppContext, 'config' | 'secrets'>, campaignId: number): (uniqueId: string) => string {
  const sign = subscriberTokenSigner(ctx.secrets.linkToken, FORWARD_DOMAIN, campaignId);
  const base = `${ctx.config.publicUrl}/forward/`;
  return (uniqueId) => base + (sign(uniqueId) ?? encodeForwardToken(ctx.secrets.linkToken, { uniqueId, campaignId }));
}
