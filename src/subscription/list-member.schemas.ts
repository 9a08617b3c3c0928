import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Email, Id, Nullable } from '../shared/schemas.js';
import { SubscriberList } from './list.schemas.js';

/** Reference §6.6: the subscriber inside a Subscription. */
export const SubscriberOnly = Type.Object({
  id: Id,
  email: Type.String(),
  created_at: DateTime,
  confirmed: Type.Boolean(),
  blacklisted: Type.Boolean(),
  bounce_count: Type.Integer(),
  unique_id: Type.String(),
  html_email: Type.Boolean(),
  disabled: Type.Boolean(),
});
export type SubscriberOnly = Static<typeof SubscriberOnly>;

const HistoryEntry = Type.Object({
  id: Id,
  ip: Nullable(Type.String()),
  created_at: DateTime,
  summary: Nullable(Type.String()),
  detail: Nullable(Type.String()),
  system_info: Nullable(Type.String()),
});

/** Reference §6.5: the full subscriber, as list-member pages show it. */
export const Subscriber = Type.Object({
  id: Id,
  email: Type.String(),
  created_at: Nullable(DateTime),
  updated_at: Nullable(DateTime),
  confirmed: Type.Boolean(),
  blacklisted: Type.Boolean(),
  bounce_count: Type.Integer(),
  unique_id: Type.String(),
  uuid: Type.String(),
  html_email: Type.Boolean(),
  disabled: Type.Boolean(),
  subscribed_lists: Type.Array(SubscriberList),
  history: Type.Array(HistoryEntry),
});
export type Subscriber = Static<typeof Subscriber>;

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
  },
  { additionalProperties: false },
);
export type AddMembersBody = Static<typeof AddMembersBody>;

/** `?emails[]=a@x&emails[]=b@y` (phpList's form); `emails=` is read the same way. */
export const RemoveMembersQuery = Type.Object({ emails: Emails });
export type RemoveMembersQuery = Static<typeof RemoveMembersQuery>;
