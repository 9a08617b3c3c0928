import type { Db, Executor } from '../db/client.js';
import type { ClickEvent, OpenEvent } from './tracking-event.js';
import * as repo from './event-flush.repository.js';
import { flagScannerBursts, SCANNER_WINDOW_MS, timingMachineReason } from './machine-detection.js';
import { recordWebhookEvent } from '../webhooks/index.js';

/*
 * One flush of the event buffer, in one transaction: match the events to their delivery records (reading the firsts
 * each record already has), judge which are a machine's (machine-detection.ts) and store them, then walk each delivery's events in time order to find its new firsts (first open,
 * first open by a person, first click) and the opens its clicks imply, set the firsts — the unique counts are those
 * the database took, exact under concurrent flushes — and add everything to the counters, per campaign, per hour
 * and per link, in a handful of multi-row statements. Statistics then read counters, never event rows.
 */

export interface FlushBatch {
  readonly opens: readonly OpenEvent[];
  readonly clicks: readonly ClickEvent[];
}

export interface FlushResult {
  readonly storedOpens: number;
  readonly storedClicks: number;
  /** Events with an unknown subscriber, campaign or link, or without a delivery record: not recorded. */
  readonly droppedOpens: number;
  readonly droppedClicks: number;
}

interface TimelineEvent {
  readonly kind: 'open' | 'click';
  readonly at: Date;
  readonly campaignId: number;
  readonly subscriberId: number;
  readonly machineReason: string | null;
  readonly source: OpenEvent | ClickEvent;
}

const HOUR_MS = 3_600_000;

const byOpenKey = (a: OpenEvent, b: OpenEvent) => a.campaignId - b.campaignId || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
const byClickKey = (a: ClickEvent, b: ClickEvent) => a.campaignId - b.campaignId || a.subscriberId - b.subscriberId;

export async function writeEvents(db: Db, batch: FlushBatch, machineSeconds: number): Promise<FlushResult> {
  // In key order, so that the index lookups of a batch walk each index in one direction.
  const openEvents = [...batch.opens].sort(byOpenKey);
  const clickEvents = [...batch.clicks].sort(byClickKey);
  return db.transaction(async (tx) => {
    const opens = openEvents.length > 0 ? await storeOpens(tx, openEvents, machineSeconds) : [];
    const clicks = clickEvents.length > 0 ? await storeClicks(tx, clickEvents, machineSeconds) : [];
    const result = {
      storedOpens: opens.length,
      storedClicks: clicks.length,
      droppedOpens: batch.opens.length - opens.length,
      droppedClicks: batch.clicks.length - clicks.length,
    };
    if (opens.length === 0 && clicks.length === 0) return result;

    const timelines = new Map<number, { state: repo.MatchedEvent; events: TimelineEvent[] }>();
    const addToTimeline = ({ row }: JudgedEvent, event: TimelineEvent) => {
      const id = row.deliveryId;
      const timeline = timelines.get(id);
      if (timeline) timeline.events.push(event);
      else timelines.set(id, { state: row, events: [event] });
    };
    for (const judged of opens) {
      const source = openEvents[judged.row.ord - 1]!;
      addToTimeline(judged, {
        kind: 'open',
        at: source.at,
        campaignId: source.campaignId,
        subscriberId: judged.row.subscriberId,
        machineReason: judged.machineReason,
        source,
      });
    }
    for (const judged of clicks) {
      const source = clickEvents[judged.row.ord - 1]!;
      addToTimeline(judged, {
        kind: 'click',
        at: source.at,
        campaignId: source.campaignId,
        subscriberId: source.subscriberId,
        machineReason: judged.machineReason,
        source,
      });
    }

    const plan = new Plan();
    for (const [id, { state, events }] of timelines) {
      plan.walk(
        id,
        state,
        events.sort((a, b) => a.at.getTime() - b.at.getTime()),
      );
    }

    if (plan.impliedOpens.length > 0) await repo.insertOpens(tx, plan.impliedOpens);
    if (plan.firsts.length > 0) plan.countFirsts(await repo.updateDeliveryFirsts(tx, plan.firsts));
    if (clicks.length > 0) await repo.addLinkClicks(tx, plan.linkTotals(), plan.linkClickers());
    await repo.addCampaignTallies(tx, [...plan.campaigns.values()]);
    await repo.addHourlyTallies(tx, [...plan.hours.values()]);
    await reportEvents(tx, opens, openEvents, clicks, clickEvents);
    return result;
  });
}

/**
 * Webhooks (issue 27): one `open.recorded` and one `click.recorded` event per flush, listing the batch's stored
 * events, and only when an endpoint asks for them (otherwise no statement is run). No address or IP: ids only.
 */
async function reportEvents(
  tx: Executor,
  opens: readonly JudgedEvent[],
  openEvents: readonly OpenEvent[],
  clicks: readonly JudgedEvent[],
  clickEvents: readonly ClickEvent[],
): Promise<void> {
  if (opens.length > 0) {
    await recordWebhookEvent(tx, 'open.recorded', {
      opens: opens.map(({ row, machineReason }) => ({
        campaign_id: openEvents[row.ord - 1]!.campaignId,
        subscriber_id: row.subscriberId,
        at: openEvents[row.ord - 1]!.at.toISOString(),
        machine: machineReason !== null,
      })),
    });
  }
  if (clicks.length > 0) {
    await recordWebhookEvent(tx, 'click.recorded', {
      clicks: clicks.map(({ row, machineReason }) => {
        const source = clickEvents[row.ord - 1]!;
        return {
          campaign_id: source.campaignId,
          subscriber_id: source.subscriberId,
          link_id: source.linkId,
          at: source.at.toISOString(),
          machine: machineReason !== null,
        };
      }),
    });
  }
}

/** An event that matched a delivery record, with the verdict it is stored with (null: a person's). */
interface JudgedEvent {
  readonly row: repo.MatchedEvent;
  readonly machineReason: string | null;
}

const timingOf = (row: repo.MatchedEvent) => ({ sentAt: row.sentAt, status: row.deliveryStatus });

/**
 * Stores the opens that have a delivery record, with the requester's verdict (made on the request) or else the
 * timing one, and answers which were stored.
 */
async function storeOpens(tx: Executor, events: readonly OpenEvent[], machineSeconds: number): Promise<JudgedEvent[]> {
  const judged = (await repo.matchOpens(tx, events)).map((row): JudgedEvent => {
    const source = events[row.ord - 1]!;
    return { row, machineReason: source.machineReason ?? timingMachineReason(source.at, timingOf(row), machineSeconds) };
  });
  if (judged.length > 0) {
    await repo.insertOpens(
      tx,
      judged.map(({ row, machineReason }) => ({ ...events[row.ord - 1]!, subscriberId: row.subscriberId, machineReason })),
    );
  }
  return judged;
}

/**
 * Stores the clicks that have a delivery record, judged by the requester and the scanner pattern within the buffer
 * (both already on the event), then the timing, then the scanner pattern against clicks already stored; answers which
 * were stored.
 */
async function storeClicks(tx: Executor, events: readonly ClickEvent[], machineSeconds: number): Promise<JudgedEvent[]> {
  const matched = (await repo.matchClicks(tx, events)).map((row) => {
    const source = events[row.ord - 1]!;
    const click = { ...source, machineReason: source.machineReason ?? timingMachineReason(source.at, timingOf(row), machineSeconds) };
    return { row, click };
  });
  const unjudged = matched.map((m) => m.click).filter((click) => click.machineReason === null);
  if (unjudged.length > 0) flagScannerBursts(unjudged, await repo.storedClicksNear(tx, unjudged, SCANNER_WINDOW_MS));
  if (matched.length > 0)
    await repo.insertClicks(
      tx,
      matched.map((m) => m.click),
    );
  return matched.map(({ row, click }) => ({ row, machineReason: click.machineReason }));
}

/** What a batch adds up to; filled by walking each delivery's events in time order. */
class Plan {
  readonly campaigns = new Map<number, repo.CampaignTally>();
  readonly hours = new Map<string, repo.HourTally>();
  readonly firsts: repo.DeliveryFirsts[] = [];
  readonly impliedOpens: repo.OpenRow[] = [];
  private readonly campaignOfDelivery = new Map<number, number>();
  private readonly links = new Map<number, number>();
  private readonly clickers = new Map<string, repo.LinkClicker>();

  walk(deliveryId: number, stored: repo.MatchedEvent, timeline: readonly TimelineEvent[]): void {
    // What the record had when the batch was stored; updateDeliveryFirsts decides which firsts are really new.
    const state = { opened: stored.opened, humanOpened: stored.humanOpened, clicked: stored.clicked };
    const firsts: repo.DeliveryFirsts = { id: deliveryId, firstOpenedAt: null, firstHumanOpenedAt: null, firstClickedAt: null };
    const countOpen = (event: TimelineEvent) => {
      const human = event.machineReason === null;
      const campaign = this.campaign(event.campaignId);
      const hour = this.hour(event.campaignId, event.at);
      campaign.opens++;
      hour.opens++;
      if (human) {
        campaign.humanOpens++;
        hour.humanOpens++;
      }
      if (!state.opened) {
        state.opened = true;
        firsts.firstOpenedAt = event.at;
      }
      if (human && !state.humanOpened) {
        state.humanOpened = true;
        firsts.firstHumanOpenedAt = event.at;
      }
    };

    for (const event of timeline) {
      if (event.kind === 'open') {
        countOpen(event);
        continue;
      }
      const human = event.machineReason === null;
      const campaign = this.campaign(event.campaignId);
      const hour = this.hour(event.campaignId, event.at);
      campaign.clicks++;
      hour.clicks++;
      if (human) {
        campaign.humanClicks++;
        hour.humanClicks++;
      }
      if (!state.clicked) {
        state.clicked = true;
        firsts.firstClickedAt = event.at;
      }
      const click = event.source as ClickEvent;
      this.links.set(click.linkId, (this.links.get(click.linkId) ?? 0) + 1);
      const pair = `${click.linkId}:${event.subscriberId}`;
      if (!this.clickers.has(pair)) this.clickers.set(pair, { linkId: click.linkId, subscriberId: event.subscriberId, at: event.at });
      // A click is an open when none was seen (images blocked), and a person's click is a person's open.
      if (!state.opened || (human && !state.humanOpened)) {
        this.impliedOpens.push({
          campaignId: event.campaignId,
          subscriberId: event.subscriberId,
          at: event.at,
          ip: click.ip,
          userAgent: click.userAgent,
          referer: click.referer,
          machineReason: event.machineReason,
        });
        countOpen(event);
      }
    }
    if (firsts.firstOpenedAt || firsts.firstHumanOpenedAt || firsts.firstClickedAt) {
      this.firsts.push(firsts);
      this.campaignOfDelivery.set(deliveryId, timeline[0]!.campaignId);
    }
  }

  /** The unique figures: the firsts the database took (see repository updateDeliveryFirsts). */
  countFirsts(taken: readonly repo.NewFirsts[]): void {
    for (const row of taken) {
      const campaign = this.campaign(this.campaignOfDelivery.get(row.id)!);
      if (row.open) campaign.uniqueOpens++;
      if (row.humanOpen) campaign.uniqueHumanOpens++;
      if (row.click) campaign.uniqueClicks++;
    }
  }

  linkTotals(): { linkId: number; clicks: number }[] {
    return [...this.links].map(([linkId, clicks]) => ({ linkId, clicks })).sort((a, b) => a.linkId - b.linkId);
  }

  linkClickers(): repo.LinkClicker[] {
    return [...this.clickers.values()];
  }

  private campaign(campaignId: number): repo.CampaignTally {
    let tally = this.campaigns.get(campaignId);
    if (!tally) {
      tally = { campaignId, opens: 0, uniqueOpens: 0, humanOpens: 0, uniqueHumanOpens: 0, clicks: 0, uniqueClicks: 0, humanClicks: 0 };
      this.campaigns.set(campaignId, tally);
    }
    return tally;
  }

  private hour(campaignId: number, at: Date): repo.HourTally {
    const start = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
    const key = `${campaignId}:${start}`;
    let tally = this.hours.get(key);
    if (!tally) {
      tally = { campaignId, hour: new Date(start), opens: 0, humanOpens: 0, clicks: 0, humanClicks: 0 };
      this.hours.set(key, tally);
    }
    return tally;
  }
}
