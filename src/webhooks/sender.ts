import type { AppContext } from '../context.js';
import { postWebhook, eventBody, type PostResult } from './post.js';
import { claimDue, deleteOldEvents, disableFailing, markDelivered, markFailed, type ClaimedDelivery } from './webhook.repository.js';

/*
 * The webhook sender, run by every process that sends campaigns (SEND_WORKER=on, `npm run worker`). Due deliveries
 * are claimed with FOR UPDATE SKIP LOCKED under a lease, posted, and their outcome written: 2xx is delivered;
 * anything else is tried again after 30 s, doubling up to 6 h, for three days after the event, then failed. An
 * endpoint whose deliveries have failed without a single success for three days is disabled, with a reason and a
 * mail to the administrators. Delivery is at least once: a sender killed mid-post leaves the row to come due again
 * when its lease ends, and the receiver deduplicates by `webhook-id`.
 */

export const FIRST_RETRY_SECONDS = 30;
export const MAX_RETRY_SECONDS = 6 * 3600;
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600 * 1000;
const LEASE_SECONDS = 60;
const BATCH = 20;
const HOUSEKEEPING_MS = 60_000;
/** Delivered events are kept this long for the deliveries listing. */
const KEEP_EVENTS_MS = 7 * 24 * 3600 * 1000;

export interface WebhookSenderOptions {
  /** Run the polling loop (default true); off, nothing happens until runOnce() (tests). */
  readonly loop?: boolean;
  readonly pollMs?: number;
  /** Start of retries (tests shorten it). */
  readonly firstRetrySeconds?: number;
}

export interface WebhookSender {
  /** One pass: claims and posts what is due; answers how many were attempted. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** When the attempt numbered `attempts` (1 = the first) is followed by the next: 30 s doubling, capped at 6 h. */
export function retryDelaySeconds(attempts: number, first = FIRST_RETRY_SECONDS): number {
  return Math.min(MAX_RETRY_SECONDS, first * 2 ** Math.min(attempts - 1, 20));
}

export function startWebhookSender(ctx: AppContext, options: WebhookSenderOptions = {}): WebhookSender {
  const pollMs = options.pollMs ?? 1000;
  const first = options.firstRetrySeconds ?? FIRST_RETRY_SECONDS;
  let stopping = false;
  let lastHousekeeping = 0;
  let wake: (() => void) | null = null;

  async function settle(delivery: ClaimedDelivery, result: PostResult): Promise<void> {
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      await markDelivered(ctx.db, delivery.id, result);
      return;
    }
    const retryAt = new Date(Date.now() + retryDelaySeconds(delivery.attempts, first) * 1000);
    const giveUp = retryAt.getTime() - delivery.createdAt.getTime() > GIVE_UP_AFTER_MS;
    await markFailed(ctx.db, delivery.id, result, giveUp ? null : retryAt);
  }

  async function housekeeping(): Promise<void> {
    const disabled = await disableFailing(
      ctx.db,
      new Date(Date.now() - GIVE_UP_AFTER_MS),
      'Every delivery failed for three days; enable the endpoint again once it answers.',
    );
    for (const endpoint of disabled) {
      ctx.log.warn({ endpointId: endpoint.id }, 'webhook endpoint disabled after failing for three days');
    }
    await deleteOldEvents(ctx.db, new Date(Date.now() - KEEP_EVENTS_MS));
  }

  async function runOnce(): Promise<number> {
    if (Date.now() - lastHousekeeping > HOUSEKEEPING_MS) {
      lastHousekeeping = Date.now();
      await housekeeping();
    }
    const claimed = await claimDue(ctx.db, BATCH, LEASE_SECONDS);
    await Promise.all(
      claimed.map(async (delivery) => {
        const body = eventBody(delivery.type, delivery.createdAt, delivery.payload);
        const result = await postWebhook({ url: delivery.url, secret: delivery.secret, id: delivery.eventId, body }, ctx.config.webhookAllowPrivate);
        await settle(delivery, result);
      }),
    );
    return claimed.length;
  }

  const loop = (async () => {
    if (options.loop === false) return;
    let failures = 0;
    while (!stopping) {
      let attempted = 0;
      try {
        attempted = await runOnce();
        failures = 0;
      } catch (err) {
        failures++;
        ctx.log.error({ err, failures }, 'webhook sender pass failed; trying again');
      }
      if (attempted === 0 && !stopping) {
        const ms = failures > 0 ? Math.min(30_000, pollMs * 2 ** Math.min(failures, 10)) : pollMs;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    }
  })();

  return {
    runOnce,
    async stop() {
      stopping = true;
      wake?.();
      await loop;
    },
  };
}
