/*
 * What other areas may use of messaging (campaigns, templates, attachments, bounces); the rest is its own. The
 * sender reads campaigns and their content from here; it owns their status itself (sending/lifecycle/).
 */
export { attachmentStorage } from './attachment-storage.js';
export { BounceCounts } from './bounce-counts.js';
export { startBounceMailbox, type BounceMailbox } from './bounce-mailbox.js';
export { listBounces } from './bounce.repository.js';
export { Bounce } from './bounce.schemas.js';
export { listCampaignAttachments } from './attachment.repository.js';
export { findCampaign, type CampaignRow } from './campaign.repository.js';
export { Campaign, CampaignParams, StatusBody, type CampaignStatus } from './campaign.schemas.js';
export { CAMPAIGN_NOT_FOUND, getCampaign, requireCampaign } from './campaign.service.js';
export { isFullHttpUrl, linksNotFull, scanTemplateHtml } from './template-html.js';
export { findTemplate, imagesOf } from './template.repository.js';
