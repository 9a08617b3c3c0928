import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from '../shared/schemas.js';

/*
 * `GET /api/v2/campaigns/{messageId}/stats`: one campaign in detail (ours; phpList has none). Every figure is read
 * from counters kept as events arrive (campaign_counters, campaign_hourly_events, links), so the answer costs the
 * same for ten deliveries as for millions.
 */

const Count = Type.Integer({ minimum: 0 });

export const CampaignStats = Type.Object({
  campaign_id: Type.Integer(),
  deliveries: Type.Object(
    { queued: Count, sending: Count, sent: Count, failed: Count, skipped: Count },
    { description: 'Delivery records by status' },
  ),
  opens: Type.Object({
    total: Type.Integer({ description: 'Every open, repeated ones, machines and opens implied by clicks included' }),
    unique: Type.Integer({ description: 'Recipients who opened at least once' }),
    human: Type.Integer({ description: 'Opens judged a person’s' }),
    unique_human: Type.Integer({ description: 'Recipients with at least one open judged a person’s' }),
  }),
  clicks: Type.Object({
    total: Count,
    unique: Type.Integer({ description: 'Recipients who clicked at least once' }),
    human: Type.Integer({ description: 'Clicks judged a person’s' }),
  }),
  bounces: Count,
  forwards: Count,
  opens_per_hour: Type.Array(Type.Object({ hour: DateTime, opens: Count, human_opens: Count }), {
    description: 'Hours (UTC) with opens, oldest first',
  }),
  clicks_per_hour: Type.Array(Type.Object({ hour: DateTime, clicks: Count, human_clicks: Count }), {
    description: 'Hours (UTC) with clicks, oldest first',
  }),
  links: Type.Array(Type.Object({ id: Type.Integer(), url: Type.String(), clicks: Count, unique_clicks: Count }), {
    description: "The campaign's tracked links, by id",
  }),
  sender: Type.Object(
    {
      consecutive_failures: Type.Integer({
        minimum: 0,
        description: 'Failed deliveries in a row, across all workers (SEND_FAILURE_PAUSE suspends the campaign)',
      }),
      paused_reason: Type.Union([Type.String(), Type.Null()], {
        description: 'Why the sender suspended the campaign (with the last server reply); null when it did not, or once resumed',
      }),
      paused_at: Type.Union([DateTime, Type.Null()]),
      relay_unavailable: Type.Union(
        [
          Type.Object({
            reason: Type.String({ description: "What happened: no connection, the session or TLS or the login refused, and the server's words" }),
            since: DateTime,
            retry_at: DateTime,
          }),
          Type.Null(),
        ],
        {
          description:
            "Set while the relay cannot be used for this campaign's mail: sending waits with no delivery's attempt spent and resumes by " +
            'itself when the relay answers (the campaign stays `inprocess`); `retry_at`: the next try (the wait doubles, up to ' +
            'SEND_RELAY_RETRY_MAX_MS); null otherwise',
        },
      ),
    },
    { description: "The sender's state for this campaign" },
  ),
  outcome: Type.Object(
    {
      result: Type.Union(
        [Type.Literal('in progress'), Type.Literal('sent'), Type.Literal('partially failed'), Type.Literal('failed'), Type.Literal('none sent')],
        {
          description:
            'How the send went, once the campaign is `sent` (phpList status): `sent` (every attempted delivery accepted), ' +
            '`partially failed` (some failed), `failed` (none accepted, some failed), `none sent` (nothing attempted: every ' +
            'record skipped, or no audience). `in progress` while the campaign is in any other status',
        },
      ),
      sent: Count,
      failed: Count,
      skipped: Count,
      reason: Type.Union([Type.String(), Type.Null()], {
        description: "The server's answer to the latest failed delivery (or why it could not be built); null when none failed",
      }),
    },
    { description: "The send's result, apart from phpList's `status` (which says `sent` once nothing is left to send, whatever happened)" },
  ),
});
export type CampaignStats = Static<typeof CampaignStats>;
