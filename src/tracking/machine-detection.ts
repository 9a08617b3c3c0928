/*
 * Telling a person's opens and clicks from a machine's. Three signals, each an approximation (docs/api.md):
 *
 * - The requester: mail privacy proxies fetch every image of every mail whether or not anyone reads it (Apple Mail
 *   Privacy Protection sends the bare user agent `Mozilla/5.0`, and Apple's own network is 17.0.0.0/8; Google's and
 *   Yahoo's image proxies name themselves), and security scanners and scripts name themselves too. Decided here, on
 *   the request, from the headers alone.
 * - The timing: an open or click within TRACKING_MACHINE_SECONDS of the delivery's sending is a gateway scanning the
 *   mail on arrival, not a reader. Decided in the flush (timingMachineReason), which reads the delivery's `sent_at`.
 * - The pattern: a link scanner follows every link of a mail at once, so clicks on two different links of one mail
 *   by one subscriber within SCANNER_WINDOW_MS of each other are all a machine's. Decided by flagScannerBursts when
 *   the buffer hands a batch to the flush (against the clicks in memory), and in the flush against stored clicks.
 *
 * These rules live here only: the flush's statements fetch what they need and store what they decided.
 */

/** Why an event is not a person's; stored in `machine_reason`. */
export const MachineReason = {
  applePrivacyProxy: 'apple-privacy-proxy',
  googleImageProxy: 'google-image-proxy',
  yahooImageProxy: 'yahoo-image-proxy',
  scannerUserAgent: 'scanner-user-agent',
  soonAfterDelivery: 'soon-after-delivery',
  linkScanner: 'link-scanner',
} as const;
export type MachineReason = (typeof MachineReason)[keyof typeof MachineReason];

/** Clicks on different links of one mail closer together than this are a scanner's. */
export const SCANNER_WINDOW_MS = 1000;

const GOOGLE_PROXY = /GoogleImageProxy/i;
const YAHOO_PROXY = /YahooMailProxy/i;
/**
 * Security gateways, link checkers, previewers and HTTP libraries. Whole words, so that a browser's user agent
 * (which carries none of them) never matches.
 */
const SCANNER_AGENT =
  /\b(?:bot|crawler|spider|scanner|linkchecker|preview|bingpreview|python-requests|python-urllib|curl|wget|go-http-client|okhttp|java|libwww-perl|headlesschrome|phantomjs|barracuda|proofpoint|mimecast|symantec|messagelabs|trendmicro|forcepoint|sophos|fortiguard|safelinks|zscaler|cisco|ironport)\b/i;

/** Apple's own address block (17.0.0.0/8), IPv4 or IPv4-mapped IPv6. */
function inAppleNetwork(ip: string | null): boolean {
  if (!ip) return false;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return v4.startsWith('17.') && /^17\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** The requester-based reason an open or click is a machine's, or null when it may be a person's. */
export function requesterMachineReason(userAgent: string | null, ip: string | null): MachineReason | null {
  const agent = userAgent?.trim() ?? '';
  if (agent === 'Mozilla/5.0' || inAppleNetwork(ip)) return MachineReason.applePrivacyProxy;
  if (GOOGLE_PROXY.test(agent)) return MachineReason.googleImageProxy;
  if (YAHOO_PROXY.test(agent)) return MachineReason.yahooImageProxy;
  if (SCANNER_AGENT.test(agent)) return MachineReason.scannerUserAgent;
  return null;
}

/** The delivery record an event belongs to, as the timing rule needs it. */
export interface DeliveryTiming {
  readonly sentAt: Date | null;
  readonly status: string;
}

/** The timing reason an open or click at `at` is a machine's: at most `machineSeconds` after its mail was sent. */
export function timingMachineReason(at: Date, delivery: DeliveryTiming, machineSeconds: number): MachineReason | null {
  if (machineSeconds <= 0) return null;
  // No sent_at yet: the mail is being sent right now (its outcome is recorded after the SMTP answer), so sooner still.
  const soon =
    delivery.sentAt === null
      ? delivery.status === 'queued' || delivery.status === 'sending'
      : at.getTime() <= delivery.sentAt.getTime() + machineSeconds * 1000;
  return soon ? MachineReason.soonAfterDelivery : null;
}

/** A click as the scanner pattern sees it. */
export interface ClickMoment {
  readonly linkId: number;
  readonly campaignId: number;
  readonly subscriberId: number;
  readonly at: Date;
}

export interface ScannableClick extends ClickMoment {
  machineReason: string | null;
}

/**
 * Flags the clicks of `batch` that have a click on another link of the same mail (campaign and subscriber) within
 * SCANNER_WINDOW_MS, looking at the batch and at `others` (clicks still waiting in the buffer, or already stored).
 * The partner click in the batch is flagged too; one in the buffer is flagged when its own turn comes, by this same
 * test.
 */
export function flagScannerBursts(batch: readonly ScannableClick[], others: readonly ClickMoment[]): void {
  const byMail = new Map<string, ClickMoment[]>();
  for (const click of [...batch, ...others]) {
    const key = `${click.campaignId}:${click.subscriberId}`;
    const group = byMail.get(key);
    if (group) group.push(click);
    else byMail.set(key, [click]);
  }
  for (const click of batch) {
    if (click.machineReason) continue;
    const group = byMail.get(`${click.campaignId}:${click.subscriberId}`) ?? [];
    const burst = group.some((other) => other.linkId !== click.linkId && Math.abs(other.at.getTime() - click.at.getTime()) <= SCANNER_WINDOW_MS);
    if (burst) click.machineReason = MachineReason.linkScanner;
  }
}
