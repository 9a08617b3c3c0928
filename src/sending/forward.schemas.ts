import { Type, type Static } from '@sinclair/typebox';
import { Email, IdParam, NonBlank, Nullable, StringEnum } from '../shared/schemas.js';

export const ForwardParams = Type.Object({ messageId: IdParam });

/** Reference §5.17. How many recipients and how long a note are configuration, checked by the service. */
export const ForwardBody = Type.Object({
  recipients: Type.Array(Email, { minItems: 1, maxItems: 1000, description: "The friends' addresses" }),
  uid: NonBlank({ maxLength: 255, description: "The forwarding subscriber's unique id (from their mail)" }),
  note: Type.Optional(Nullable(Type.String({ description: 'A personal note put above the message' }))),
  from_name: NonBlank({ maxLength: 255, description: "The forwarder's name, as the friend will see it" }),
  from_email: Email,
});
export type ForwardBody = Static<typeof ForwardBody>;

export const FORWARD_STATUSES = ['sent', 'failed', 'already_sent'] as const;
export type ForwardStatus = (typeof FORWARD_STATUSES)[number];

/** Reference §6.19, keys in phpList's order. */
export const ForwardResult = Type.Object({
  total_requested: Type.Integer({ description: 'Distinct addresses asked for' }),
  total_sent: Type.Integer(),
  total_failed: Type.Integer(),
  total_already_sent: Type.Integer(),
  recipients: Type.Array(
    Type.Object({
      email: Type.String(),
      status: StringEnum(FORWARD_STATUSES, { description: '`sent`: accepted for sending (queued); it leaves after the answer' }),
      reason: Nullable(
        Type.String({
          description:
            '`blacklisted` (the address never gets mail), `precache_failed` (the campaign could not be rendered), ' +
            '`send_failed` (the copy could not be made for this address); null when sent (queued for sending) or already sent',
        }),
      ),
    }),
  ),
});
export type ForwardResult = Static<typeof ForwardResult>;
