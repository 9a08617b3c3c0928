import type { paths } from './schema';

/** The JSON body of an answer of the API, straight from the generated paths (no hand-written copies). */
export type Answer<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

export type List = Answer<'/api/v2/lists/{listId}', 'get'>;
export type Subscriber = Answer<'/api/v2/subscribers/{subscriberId}', 'get'>;
export type SubscriberPage = Answer<'/api/v2/subscribers', 'get'>;
export type Member = SubscriberPage['items'][number];
export type BulkJob = Answer<'/api/v2/bulk-jobs/{jobId}', 'get'>;
export type BulkRequest = NonNullable<paths['/api/v2/subscribers/bulk']['post']['requestBody']>['content']['application/json'];
/** The list view's filter, which bulk actions over "every match" take as it is. */
export type SubscriberFilter = NonNullable<BulkRequest['filter']>;
export type Administrator = Answer<'/api/v2/sessions/me', 'get'>;
export type Privilege = keyof Administrator['privileges'];
export type Dashboard = Answer<'/api/v2/analytics/dashboard', 'get'>;
export type AttributeDefinition = Answer<'/api/v2/attributes/{definitionId}', 'get'>;
export type AttributeValue = Answer<'/api/v2/subscribers/{subscriberId}/attributes/{definitionId}', 'get'>;
export type BlacklistInfo = Answer<'/api/v2/blacklist/info/{email}', 'get'>;
export type ImportResult = Answer<'/api/v2/subscribers/import', 'post'>;
export type AdminAttributeDefinition = Answer<'/api/v2/administrators/attributes/{definitionId}', 'get'>;
export type AdminAttributeValue = Answer<'/api/v2/administrators/{adminId}/attributes/{definitionId}', 'get'>;
export type Campaign = Answer<'/api/v2/campaigns/{messageId}', 'get'>;
export type CampaignStats = Answer<'/api/v2/campaigns/{messageId}/stats', 'get'>;
export type Audience = Answer<'/api/v2/campaigns/{messageId}/audience', 'get'>;
export type DeliveryPage = Answer<'/api/v2/campaigns/{messageId}/deliveries', 'get'>;
export type CampaignPage = Answer<'/api/v2/campaigns', 'get'>;
export type CampaignListItem = CampaignPage['items'][number];
export type CampaignPreview = Answer<'/api/v2/campaigns/{messageId}/preview', 'post'>;
export type CampaignCheck = Answer<'/api/v2/campaigns/{messageId}/checks', 'get'>['warnings'][number];
export type Placeholder = Answer<'/api/v2/campaign-placeholders', 'get'>['items'][number];
export type Attachment = Answer<'/api/v2/campaigns/{messageId}/attachments', 'get'>[number];
export type MediaPage = Answer<'/api/v2/media', 'get'>;
export type MediaItem = MediaPage['items'][number];
