import { eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { bool, textOrNull } from '../db/row.js';
import { campaignSegments } from '../db/schema/index.js';

// The SQL of campaign-segment.ts: what a campaign names in `user_selection`, and its frozen segment.

/**
 * A campaign's `user_selection` and whether it is linked to any list; undefined when there is no such campaign. Raw:
 * in a one-table select the builder writes columns inside a `sql` field without their table, which would turn the
 * correlated `exists` into a comparison of list_campaigns with itself.
 */
export async function findCampaignSelection(db: Executor, campaignId: number) {
  const [campaign] = await queryRows(
    db,
    sql`select user_selection, exists (select 1 from list_campaigns lc where lc.campaign_id = c.id) as has_lists
        from campaigns c where c.id = ${campaignId}`,
    (row) => ({ userSelection: textOrNull(row, 'user_selection'), hasLists: bool(row, 'has_lists') }),
  );
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
