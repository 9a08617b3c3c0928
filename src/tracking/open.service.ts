import type { AppContext } from '../context.js';
import type { TrackingLimits } from './address-limiter.js';
import { requesterMachineReason } from './machine-detection.js';
import type { RequestDetails } from './request-details.js';

/** The 43-byte transparent 1×1 GIF of phpList (reference §5.20). */
export const PIXEL = Buffer.from('R0lGODlhAQABAPAAAAAAAAAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

/** Never cached, so that every open reaches us (reference §5.20). */
export const PIXEL_HEADERS = {
  'content-type': 'image/gif',
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
} as const;

/** A subscriber uid as we issue them (32 hex) or as older data may hold them; anything else is not looked up. */
const UID = /^[A-Za-z0-9_-]{1,64}$/;
const CAMPAIGN_ID = /^\d{1,10}$/;

/**
 * Queues the open of campaign `m` by the subscriber with uid `u` for the next flush, which records it if both exist
 * and the subscriber has a delivery record of the campaign. Never throws and never queries: the pixel is answered
 * whatever happens here. Why nothing was recorded goes to the debug log (without the uid: it is a credential).
 */
export function recordOpen(ctx: AppContext, u: string | undefined, m: string | undefined, details: RequestDetails, limits: TrackingLimits): void {
  try {
    if (u === undefined || m === undefined) {
      ctx.log.debug({ u: u !== undefined, m: m !== undefined }, 'open not recorded: u or m missing');
      return;
    }
    const campaignId = CAMPAIGN_ID.test(m) ? Number(m) : 0;
    if (!UID.test(u) || campaignId < 1 || campaignId > 2_147_483_647) {
      ctx.log.debug('open not recorded: malformed u or m');
      return;
    }
    // Over TRACKING_RATE for this delivery from this address the pixel is answered all the same; the open is counted
    // as dropped, not recorded.
    if (!limits.takeOpen(details.ip, u, campaignId)) return;
    ctx.events.addOpen({
      uid: u,
      campaignId,
      at: new Date(),
      ...details,
      machineReason: requesterMachineReason(details.userAgent, details.ip),
    });
  } catch (err) {
    ctx.log.error({ err }, 'open not recorded');
  }
}
