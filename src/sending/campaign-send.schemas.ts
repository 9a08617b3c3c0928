import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../shared/pagination.js';
import { DateTime, Id, Nullable, StringEnum } from '../shared/schemas.js';

export const DELIVERY_STATUSES = ['queued', 'sending', 'sent', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Reference §5.13: the lists to send the campaign to as well. */
export const ResendBody = Type.Object(
  {
    list_ids: Type.Array(Id, {
      minItems: 1,
      maxItems: 1000,
      description: 'Lists whose confirmed members get the campaign too; subscribers who already have a record are skipped',
    }),
  },
  { additionalProperties: false },
);
export type ResendBody = Static<typeof ResendBody>;

/** One record of the delivery ledger. */
export const Delivery = Type.Object({
  id: Type.Integer(),
  subscriber_id: Type.Integer(),
  email: Type.String(),
  status: StringEnum(DELIVERY_STATUSES),
  attempts: Type.Integer({ description: 'Send attempts made' }),
  last_response: Nullable(Type.String({ description: "The mail server's last reply, or why the record was skipped" })),
  queued_at: DateTime,
  sent_at: Nullable(DateTime),
  updated_at: DateTime,
  next_attempt_at: Nullable(DateTime),
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryListQuery = Type.Composite([
  PageQuery,
  Type.Object({ status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only records in this status' })) }),
]);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const RetryResult = Type.Object({
  requeued: Type.Integer({ description: 'Failed records queued again' }),
});

/** `GET /campaigns/{id}/audience` (ours): who a send would go to now, for the console's confirmation. */
export const AudienceCount = Type.Object({
  count: Type.Integer({
    minimum: 0,
    description: "Distinct confirmed, not blacklisted, not disabled members of the campaign's lists, by the freeze's own rule",
  }),
  lists: Type.Integer({ minimum: 0, description: 'Lists the campaign is linked to' }),
  text_only: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      'Of `count`, subscribers whose `html_email` is false: they get the campaign as its text part only. Null for a ' +
      'campaign sent as text (`send_format` text), which every recipient gets as text',
  }),
});
export type AudienceCount = Static<typeof AudienceCount>;
