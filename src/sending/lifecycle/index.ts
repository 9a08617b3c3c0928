/* What other areas may use of the campaign lifecycle. */
export { changeCampaignStatus } from './campaign-lifecycle.js';
