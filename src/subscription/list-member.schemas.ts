import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Email } from '../shared/schemas.js';
import { SubscriberList } from './list.schemas.js';
import { SubscriberOnly } from './subscriber.schemas.js';

/** Reference §6.8. */
export const Subscription = Type.Object({
  subscriber: SubscriberOnly,
  subscriber_list: SubscriberList,
  subscription_date: DateTime,
});
export type Subscription = Static<typeof Subscription>;

export const MemberCount = Type.Object({ subscribers_count: Type.Integer({ minimum: 0 }) });

export const MAX_EMAILS = 1000;

const Emails = Type.Array(Email, {
  minItems: 1,
  maxItems: MAX_EMAILS,
  description: `The subscribers' e-mail addresses (1 to ${MAX_EMAILS})`,
});

export const AddMembersBody = Type.Object(
  {
    emails: Emails,
    auto_confirm: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'true: the subscribers are confirmed and no mail is sent; false: unconfirmed ones get a confirmation mail',
      }),
    ),
    create_unknown: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Ours (the admin console): true creates a subscriber for each address that has none (html_email by the ' +
          'SUBSCRIBER_HTML_DEFAULT setting, ' +
          'confirmed as auto_confirm says); false (phpList): such an address is a 404 and nothing is stored',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AddMembersBody = Static<typeof AddMembersBody>;

/** `?emails[]=a@x&emails[]=b@y` (phpList's form); `emails=` is read the same way. */
export const RemoveMembersQuery = Type.Object({ emails: Emails });
export type RemoveMembersQuery = Static<typeof RemoveMembersQuery>;
