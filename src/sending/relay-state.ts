import type { SendingConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { clearRelayDown, recordRelayDown } from './campaign-run.repository.js';

/*
 * A relay that cannot be used (issue 23): no connection, a session refused (421), TLS or the login failing. That is
 * no recipient's failure, so it spends no delivery's attempt and does not count towards SEND_FAILURE_PAUSE: the
 * batch goes back to the queue as it was, and this worker claims nothing until the next probe is due, the wait
 * doubling from SEND_RELAY_RETRY_MS up to SEND_RELAY_RETRY_MAX_MS. The probe is the next batch itself; the first
 * one the relay answers clears the state and sending goes on, with no one's help. Each campaign that hit the relay
 * shows it in its send status (campaign_send_states: relay_error, relay_down_since, relay_retry_at; GET
 * /campaigns/{id}/stats, `sender.relay_unavailable`) until then.
 */

export interface RelayState {
  /** When the relay may be tried again, while it may not; null: go ahead. */
  waitUntil(): Date | null;
  /** The relay was found down and has not answered since: the next batch is a probe. */
  probing(): boolean;
  /** A batch found the relay unusable (`what`: what happened); answers when to try again. */
  down(campaignId: number, what: string): Promise<Date>;
  /** A batch that started at `startedAt` was answered by the relay: clears the state if it was down. */
  up(startedAt: number): Promise<void>;
}

export function relayState(ctx: AppContext, settings: Pick<SendingConfig, 'relayRetryMs' | 'relayRetryMaxMs'>): RelayState {
  let probes = 0;
  let retryAt = 0;
  let downAt = 0;
  const marked = new Set<number>();
  return {
    waitUntil: () => (retryAt > Date.now() ? new Date(retryAt) : null),
    probing: () => probes > 0,
    async down(campaignId, what) {
      // Several lanes learn it from one probe: the wait grows once per probe, not once per lane.
      if (retryAt <= Date.now()) {
        probes++;
        const wait = Math.min(settings.relayRetryMaxMs, settings.relayRetryMs * 2 ** Math.min(probes - 1, 30));
        retryAt = Date.now() + wait;
        // A relay error names the host, the port and the server's words, never a recipient: it may be logged.
        ctx.log.warn(
          { campaignId, probes, retryInMs: wait },
          `relay unavailable: ${what}; sending waits (no delivery's attempt is spent) and tries again in ${Math.ceil(wait / 1000)} s`,
        );
      }
      downAt = Date.now();
      marked.add(campaignId);
      await recordRelayDown(ctx.db, campaignId, what, new Date(retryAt));
      return new Date(retryAt);
    },
    async up(startedAt) {
      if (marked.size === 0 && probes === 0) return;
      // A batch that began before the relay was found down says nothing about it now.
      if (startedAt < downAt) return;
      const campaigns = [...marked];
      marked.clear();
      ctx.log.info({ campaigns, probes }, 'relay answers again: sending resumed');
      probes = 0;
      retryAt = 0;
      await clearRelayDown(ctx.db, campaigns);
    },
  };
}
