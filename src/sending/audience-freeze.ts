import type { AppContext } from '../context.js';
import { campaignSegment } from '../segments/index.js';
import * as audience from './audience.repository.js';
import { lockCampaign, moveCampaign } from './lifecycle/campaign-lifecycle.js';

/*
 * Reference §7.1's `prepared` step, in the background: a worker freezes a campaign's audience into delivery records
 * chunk by chunk, then moves it `prepared → inprocess`. Submitting only marked which lists to freeze
 * (audience.repository.ts), so the request that submits answers at once whatever the lists' size.
 *
 * Each chunk is its own short transaction: the campaign's freeze lock (one worker at a time per campaign, the
 * others skip it), its status (suspended → stop), one INSERT … SELECT of up to `chunkSize` members, progress. A
 * worker that dies mid-chunk loses that chunk's transaction and nothing else; the next one runs it again.
 */

/**
 * Members looked at per chunk statement: big enough that round trips do not count, small enough to stay short
 * (about a second on PostgreSQL). Embedded PGlite is one connection that every API request waits for, so it takes
 * smaller bites there (a few hundred milliseconds each).
 */
export const FREEZE_CHUNK = 50_000;
export const FREEZE_CHUNK_PGLITE = 10_000;

export interface FreezeOptions {
  readonly chunkSize: number;
  /** How long one campaign is frozen before the others (and sending) get their turn; at least one chunk each. */
  readonly turnMs: number;
  isStopping(): boolean;
}

export interface FreezeSummary {
  /** Records added. */
  readonly added: number;
  /** Campaigns moved on to `inprocess`. */
  readonly started: number[];
  /** Chunk statements run. */
  readonly chunks: number;
  /** Some campaign has freezing left that this pass did not get to (turn over, or another worker's chunk). */
  readonly unfinished: boolean;
}

type Step = { state: 'busy' | 'stopped' | 'done' } | { state: 'chunk'; added: number; allDone: boolean };

/** One pass over every campaign with freezing to do. */
export async function freezePending(ctx: AppContext, options: FreezeOptions): Promise<FreezeSummary> {
  let added = 0;
  let chunks = 0;
  let unfinished = false;
  const started: number[] = [];
  for (const id of await audience.freezeCandidates(ctx.db)) {
    if (options.isStopping()) {
      unfinished = true;
      break;
    }
    const deadline = Date.now() + options.turnMs;
    let outcome: Step['state'] = 'chunk';
    for (let first = true; outcome === 'chunk'; first = false) {
      if (!first && (Date.now() >= deadline || options.isStopping())) {
        unfinished = true;
        break;
      }
      const step = await freezeStep(ctx, id, options.chunkSize);
      outcome = step.state;
      if (step.state !== 'chunk') break;
      added += step.added;
      chunks++;
      if (step.allDone) {
        await audience.stampFrozen(ctx.db, id);
        outcome = 'done'; // no need for another round trip to learn that
      }
    }
    if (outcome === 'busy') unfinished = true;
    if (outcome === 'done' && (await startSending(ctx, id))) started.push(id);
  }
  return { added, started, chunks, unfinished };
}

async function freezeStep(ctx: AppContext, campaignId: number, chunkSize: number): Promise<Step> {
  return ctx.db.transaction(async (tx): Promise<Step> => {
    if (!(await audience.tryFreezeLock(tx, campaignId))) return { state: 'busy' };
    const status = await audience.statusForFreeze(tx, campaignId);
    // Suspended (or deleted) meanwhile: stop here; resuming marks the lists again and the pass goes on from here.
    if (status !== 'prepared' && status !== 'inprocess') return { state: 'stopped' };
    const source = await audience.nextSource(tx, campaignId);
    if (!source) return { state: 'done' };
    const segment = await campaignSegment(tx, campaignId);
    const chunk = await audience.freezeChunk(tx, campaignId, source, chunkSize, segment?.predicateAfter(source.after) ?? null);
    return { state: 'chunk', added: chunk.added, allDone: chunk.allDone };
  });
}

/**
 * A `prepared` campaign with nothing left to freeze starts sending (`send_start` is set the first time). Lists a
 * resend marks after this are frozen while it sends; the sender does not finish a campaign with lists pending.
 */
async function startSending(ctx: AppContext, campaignId: number): Promise<boolean> {
  const moved = await ctx.db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, campaignId);
    if (campaign?.status !== 'prepared') return false;
    await moveCampaign(tx, campaign, 'inprocess');
    return true;
  });
  if (moved) ctx.log.info({ campaignId }, 'campaign sending started');
  return moved;
}
