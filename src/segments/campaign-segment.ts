import type { SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { ValidationError } from '../shared/errors.js';
import { deleteCampaignSegment, findCampaignSegment, findCampaignSelection, upsertCampaignSegment } from './campaign-segment.repository.js';
import { segmentPredicate } from './segment.compile.js';
import { checkDefinition, type GroupCondition } from './segment.definition.js';
import * as repo from './segment.repository.js';

/*
 * A campaign sent to a segment. phpList clients read and write the campaign option `user_selection`; Mailroom reads
 * `segment:<id>` there as "the subscribers segment <id> matches" (docs/api.md "Segments"). With lists, the segment
 * narrows their members; without, it is the whole audience. When the campaign is submitted, the segment's checked
 * definition is copied into campaign_segments, so the freeze (sending/audience-freeze.ts) uses what was submitted
 * whatever happens to the segment afterwards.
 */

const SELECTION = /^\s*segment:(\d{1,10})\s*$/;

/** The segment id a campaign's `user_selection` names, or null for any other text (kept, as phpList keeps it). */
export function segmentIdOf(userSelection: string | null | undefined): number | null {
  const match = userSelection ? SELECTION.exec(userSelection) : null;
  const id = match ? Number(match[1]) : 0;
  return id >= 1 && id <= 2_147_483_647 ? id : null;
}

/** For campaign create/update: a `segment:<id>` that names no segment is refused (422 on user_selection). */
export async function checkSelection(db: Executor, userSelection: string | null | undefined): Promise<void> {
  const id = segmentIdOf(userSelection);
  if (id !== null && !(await repo.find(db, id))) {
    throw ValidationError.field('options.user_selection', `There is no segment with id ${id} (user_selection "segment:${id}").`);
  }
}

interface Target {
  readonly segmentId: number;
  readonly definition: GroupCondition;
  readonly hasLists: boolean;
}

/**
 * The segment a campaign names now, checked against today's attributes and lists; null when it names none. A name
 * that no longer resolves, or a definition that no longer checks, is a 422 on `options.user_selection`.
 */
async function targetOf(db: Executor, campaignId: number): Promise<Target | null> {
  const campaign = await findCampaignSelection(db, campaignId);
  const segmentId = segmentIdOf(campaign?.userSelection);
  if (!campaign || segmentId === null) return null;
  const segment = await repo.find(db, segmentId);
  if (!segment) {
    throw ValidationError.field(
      'options.user_selection',
      `The campaign's segment ${segmentId} (user_selection "segment:${segmentId}") does not exist any more.`,
    );
  }
  const checked = checkDefinition(segment.definition, await repo.vocabulary(db), 'segment');
  if (!checked.ok) throw new ValidationError(checked.errors);
  return { segmentId, definition: checked.definition, hasLists: campaign.hasLists };
}

/**
 * In the transaction that submits a campaign: freezes its segment's definition into campaign_segments, or removes a
 * segment it no longer targets. A segment walk interrupted (suspended mid-freeze) continues where it stopped.
 */
export async function markCampaignSegment(tx: Executor, campaignId: number): Promise<void> {
  const target = await targetOf(tx, campaignId);
  if (!target) {
    await deleteCampaignSegment(tx, campaignId);
    return;
  }
  await upsertCampaignSegment(tx, campaignId, { segmentId: target.segmentId, definition: target.definition, narrowsLists: target.hasLists });
}

export interface CampaignSegment {
  /** Over `subscribers s`: who of the campaign's audience the segment lets through. */
  readonly predicate: SQL;
  /** The same, for a statement that only looks at subscribers after `after` (a chunk of the freeze's walk). */
  predicateAfter(after: number): SQL;
  /** The segment is narrowing the campaign's lists (rather than being the audience itself). */
  readonly narrowsLists: boolean;
}

/** The frozen segment of a submitted campaign, compiled; null when it has none. */
export async function campaignSegment(db: Executor, campaignId: number): Promise<CampaignSegment | null> {
  const row = await findCampaignSegment(db, campaignId);
  if (!row) return null;
  // The document markCampaignSegment stored, checked when the campaign was submitted (Drizzle parses the jsonb).
  const definition = row.definition as GroupCondition;
  return compiled(definition, row.narrowsLists);
}

/** The segment a campaign names now (before it is submitted), compiled; null when it names none. For audience counts. */
export async function currentCampaignSegment(db: Executor, campaignId: number): Promise<CampaignSegment | null> {
  const target = await targetOf(db, campaignId);
  return target && compiled(target.definition, target.hasLists);
}

function compiled(definition: GroupCondition, narrowsLists: boolean): CampaignSegment {
  return { predicate: segmentPredicate(definition), predicateAfter: (after) => segmentPredicate(definition, after), narrowsLists };
}
