/*
 * Opens and clicks as the tracking endpoints record them, on their way through the buffer (event-buffer.ts) to the
 * flush (event-flush.*). Their own module, so that the buffer and the flush each depend on it and not on each other.
 */

/** An open as the pixel saw it; the subscriber is resolved from its uid in the flush (unknown ones are dropped). */
export interface OpenEvent {
  readonly uid: string;
  readonly campaignId: number;
  readonly at: Date;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly referer: string | null;
  /** The requester-based verdict (machine-detection.ts); the flush adds the timing one. */
  readonly machineReason: string | null;
}

/** A click as the redirect saw it: the link and subscriber come from the signed token. */
export interface ClickEvent {
  readonly linkId: number;
  readonly campaignId: number;
  readonly subscriberId: number;
  readonly at: Date;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly referer: string | null;
  machineReason: string | null;
}
