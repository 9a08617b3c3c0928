import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from '../shared/schemas.js';

/*
 * `GET /api/v2/campaigns/{messageId}/domains`: the campaign's recipients by domain, from a snapshot refreshed in the
 * background (campaign-domains.service.ts), so the answer never waits for a million deliveries to be grouped.
 */

const Count = Type.Integer({ minimum: 0 });

export const CampaignDomainsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'How many domains, largest first (1..100)' }),
});
export type CampaignDomainsQuery = Static<typeof CampaignDomainsQuery>;

export const CampaignDomain = Type.Object({
  domain: Type.String({ description: "The part of the addresses after '@', lower-cased" }),
  recipients: Type.Integer({ minimum: 0, description: 'Delivery records, whatever their status' }),
  sent: Count,
  failed: Count,
  opened: Type.Integer({ minimum: 0, description: 'Recipients with an open judged a person’s (unique human opens)' }),
  clicked: Type.Integer({ minimum: 0, description: 'Recipients who clicked at least once' }),
  bounced: Type.Integer({ minimum: 0, description: 'Recipients with a bounce matched to this campaign' }),
});

export const CampaignDomains = Type.Object({
  computed_at: Type.Union([DateTime, Type.Null()], { description: 'When the figures were computed; null before the first snapshot' }),
  stale: Type.Boolean({
    description:
      'No snapshot yet, or older than 10 minutes while the campaign is not sent or was sent within the last 7 days: ' +
      'a refresh has been started in the background; ask again for newer figures',
  }),
  items: Type.Array(CampaignDomain, { description: 'By recipients, most first, then by domain' }),
});
export type CampaignDomains = Static<typeof CampaignDomains>;
