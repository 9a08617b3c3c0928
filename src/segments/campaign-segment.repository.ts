import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { campaigns, campaignSegments, listCampaigns } from '../db/schema/index.js';

// The SQL of campaign-segment.ts: what a campaign names in `user_selection`, and its frozen segment.

/** A campaign's `user_selection` and whether it is linked to any list; undefined when there is no such campaign. */
export async function findCampaignSelection(db: Executor, campaignId: number) {
  const [campaign] = await db
    .select({
      userSelection: campaigns.userSelection,
      hasLists: sql<boolean>`exists (select 1 from ${listCampaigns} where ${listCampaigns.campaignId} = ${campaigns.id})`,
    })
    .from(campaigns)
    .where(eq(campaigns.id, campaignId));
  return campaign;
}

export async function deleteCampaignSegment(db: Executor, campaignId: number): Promise<void> {
  await db.delete(campaignSegments).where(eq(campaignSegments.campaignId, campaignId));
}

/**
 * Stores a campaign's segment definition as submitted. A segment that narrows lists is frozen with them (now); one
 * that is the whole audience is walked by the freeze, which continues from where an interrupted walk stopped unless
 * the campaign changed from narrowing to not.
 */
export async function upsertCampaignSegment(
  db: Executor,
  campaignId: number,
  segment: { segmentId: number; definition: unknown; narrowsLists: boolean },
): Promise<void> {
  const { narrowsLists } = segment;
  await db
    .insert(campaignSegments)
    .values({ campaignId, segmentId: segment.segmentId, definition: segment.definition, narrowsLists, frozenAt: narrowsLists ? sql`now()` : null })
    .onConflictDoUpdate({
      target: campaignSegments.campaignId,
      set: {
        segmentId: sql`excluded.segment_id`,
        definition: sql`excluded.definition`,
        narrowsLists: sql`excluded.narrows_lists`,
        frozenThroughSubscriberId: sql`case when ${campaignSegments.frozenAt} is null and not excluded.narrows_lists
                                            then ${campaignSegments.frozenThroughSubscriberId} else 0 end`,
        frozenAt: sql`excluded.frozen_at`,
        updatedAt: sql`now()`,
      },
    });
}

/** A submitted campaign's frozen segment (its definition as the JSON document stored), if it has one. */
export async function findCampaignSegment(db: Executor, campaignId: number) {
  const [row] = await db
    .select({ definition: campaignSegments.definition, narrowsLists: campaignSegments.narrowsLists })
    .from(campaignSegments)
    .where(eq(campaignSegments.campaignId, campaignId));
  return row;
}
