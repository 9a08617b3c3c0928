/*
 * Segments: saved subscriber selections and the campaigns that send to them.
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { campaignSegment, checkSelection, currentCampaignSegment, markCampaignSegment, segmentIdOf } from './campaign-segment.js';
export { SEGMENT_COMPONENTS } from './segment.schemas.js';
