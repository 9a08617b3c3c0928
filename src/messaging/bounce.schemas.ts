import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../shared/pagination.js';
import { DateTime, Id, Nullable } from '../shared/schemas.js';

/** Reference §6.17. Campaign and subscriber fields are null for a bounce matched to no delivery. */
export const Bounce = Type.Object({
  id: Id,
  status: Nullable(Type.String()),
  date: Nullable(DateTime),
  message_id: Nullable(Type.Integer()),
  message_subject: Nullable(Type.String()),
  subscriber_id: Nullable(Type.Integer()),
  subscriber_email: Nullable(Type.String()),
  comment: Nullable(Type.String()),
});
export type Bounce = Static<typeof Bounce>;

export const BounceListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(Type.String({ maxLength: 255, description: 'Exact status, trimmed' })),
    subscriber_id: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: "Only this subscriber's bounces (Mailroom addition)" }),
    ),
  }),
]);

export const BounceParams = Type.Object({ bounceId: Type.Integer({ minimum: 0, maximum: 9_007_199_254_740_991 }) });

export const CampaignBounces = Type.Object({
  message_id: Type.Integer(),
  subject: Type.String(),
  total_bounces: Type.Integer(),
});
export const SubscriberBounces = Type.Object({
  subscriber_id: Type.Integer(),
  email: Type.String(),
  confirmed: Type.Boolean(),
  blacklisted: Type.Boolean(),
  total_bounces: Type.Integer(),
});
export type CampaignBounces = Static<typeof CampaignBounces>;
export type SubscriberBounces = Static<typeof SubscriberBounces>;

/** The totals answer at most this many rows, most bounces first. */
export const MAX_TOTALS = 1000;

/** Characters of a raw bounce's header and of its body that `GET /bounces/{id}` returns. */
export const MAX_RAW_CHARACTERS = 262_144;

/** `GET /bounces/{bounceId}` (ours): a list item plus the message as received, for the console's "raw message". */
export const BounceDetail = Type.Composite([
  Bounce,
  Type.Object({
    header: Nullable(Type.String({ description: 'The header as received (at most 262,144 characters)' })),
    data: Nullable(Type.String({ description: 'The body as received (at most 262,144 characters)' })),
    truncated: Type.Boolean({ description: 'Whether the header or the body was cut at 262,144 characters' }),
  }),
]);
export type BounceDetail = Static<typeof BounceDetail>;
