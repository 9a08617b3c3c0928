import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../shared/schemas.js';

/** What bounce processing did with one message (see bounce-processing.ts). */
export const BounceAction = Type.Object({
  action: Type.Union(
    ['counted', 'blacklisted', 'unconfirmed', 'confirmed', 'subscriber_deleted', 'bounce_deleted'].map((a) => Type.Literal(a)),
    { description: 'What was done' },
  ),
  reason: Type.String({ description: 'Why, in words (the same text as the history entry)' }),
});

export const InboundBounceResult = Type.Object({
  id: Type.Integer({ description: 'The bounce (no longer listed when a rule deleted it: see the `bounce_deleted` action)' }),
  status: Type.String({ description: '`bounced list message`, `bounced subscriber`, `complaint` or `unidentified`' }),
  kind: Nullable(
    Type.Union(
      ['hard', 'soft', 'complaint', 'unknown'].map((k) => Type.Literal(k)),
      {
        description: 'hard (5.x.x), soft (4.x.x), complaint (abuse report), unknown (no status); null: not a failure',
      },
    ),
  ),
  campaign_id: Nullable(Type.Integer()),
  subscriber_id: Nullable(Type.Integer()),
  matched_by: Nullable(
    Type.Union(
      ['verp', 'delivery', 'campaign_subscriber', 'message_id', 'recipient'].map((m) => Type.Literal(m)),
      {
        description:
          'What tied the bounce to what was sent: the VERP token of the address it came back to, a returned header, or the failed ' +
          'address. Only `verp` and headers of the returned message or header part act (blacklist, unconfirm, rules); see docs/api.md',
      },
    ),
  ),
  rule_id: Nullable(Type.Integer({ description: 'The bounce rule that matched, if any' })),
  duplicate: Type.Boolean({ description: 'The message was processed before (nothing was done again)' }),
  actions: Type.Array(BounceAction),
});
export type InboundBounceResult = Static<typeof InboundBounceResult>;
