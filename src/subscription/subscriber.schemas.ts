import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../shared/pagination.js';
import { DateTime, Email, Id, IdParam, Nullable } from '../shared/schemas.js';
import { SubscriberList } from './list.schemas.js';
import { SubscriberHistory } from './subscriber-history.schemas.js';

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

/** Reference §6.5, keys in phpList's order. `history` is filled only by the single GET. */
export const Subscriber = Type.Object({
  id: Id,
  email: Type.String(),
  created_at: Nullable(DateTime),
  updated_at: Nullable(DateTime),
  confirmed: Type.Boolean(),
  blacklisted: Type.Boolean(),
  bounce_count: Type.Integer(),
  unique_id: Type.String({ description: '32 lowercase hex characters; the credential in public links' }),
  uuid: Type.String({ description: 'Always empty (a legacy phpList column)' }),
  html_email: Type.Boolean(),
  disabled: Type.Boolean(),
  subscribed_lists: Type.Array(SubscriberList),
  history: Type.Array(SubscriberHistory),
});
export type Subscriber = Static<typeof Subscriber>;

export const SubscriberParams = Type.Object({ subscriberId: IdParam });

/** `GET /subscribers/defaults` (ours): what a subscriber created without saying gets. */
export const SubscriberDefaults = Type.Object({
  html_email: Type.Boolean({ description: 'SUBSCRIBER_HTML_DEFAULT: HTML mail (true) or plain text (false)' }),
});

const BOOLEAN_TEXT = ['true', 'false', '1', '0'];
function BooleanText(name: string) {
  return Type.Optional(
    Type.Unsafe<string>({
      type: 'string',
      enum: BOOLEAN_TEXT,
      errorMessage: `${name} must be one of: true, false, 1, 0`,
    }),
  );
}

/** phpList's find columns, also accepted in snake_case. */
export const FIND_COLUMNS = ['email', 'foreignKey', 'uniqueId', 'foreign_key', 'unique_id'] as const;
export type FindColumn = (typeof FIND_COLUMNS)[number];

/** How attribute_value matches: a substring of the value, or the whole value. */
export const ATTRIBUTE_MATCHES = ['contains', 'equals'] as const;
export type AttributeMatch = (typeof ATTRIBUTE_MATCHES)[number];

/**
 * Which subscribers: the one filter definition of the list view (`GET /subscribers`) and of bulk actions
 * (`POST /subscribers/bulk`, `POST /subscribers/bulk/export`). Conditions are ANDed.
 */
export const SubscriberFilterQuery = Type.Object({
  is_confirmed: BooleanText('is_confirmed'),
  is_blacklisted: BooleanText('is_blacklisted'),
  find_column: Type.Optional(
    Type.Unsafe<FindColumn>({
      type: 'string',
      enum: [...FIND_COLUMNS],
      errorMessage: 'Invalid find_column value. Allowed values: email, foreignKey, uniqueId.',
    }),
  ),
  find_value: Type.Optional(Type.String({ description: 'Substring to find in find_column (ignored without it)' })),
  list_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'Only subscribers of this list (Mailroom addition; 404 when there is no such list)',
    }),
  ),
  attribute_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'Only subscribers whose value of this attribute matches attribute_value (Mailroom addition; 404 when there is no such attribute)',
    }),
  ),
  attribute_value: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'The value to match, case-insensitively; for option attributes, the option name (ignored without attribute_id)',
    }),
  ),
  attribute_match: Type.Optional(
    Type.Unsafe<AttributeMatch>({
      type: 'string',
      enum: [...ATTRIBUTE_MATCHES],
      description: 'contains (the default) or equals',
      errorMessage: 'Invalid attribute_match value. Allowed values: contains, equals.',
    }),
  ),
});
export type SubscriberFilterQuery = Static<typeof SubscriberFilterQuery>;

export const SubscriberListQuery = Type.Object({ ...PageQuery.properties, ...SubscriberFilterQuery.properties });
export type SubscriberListQuery = Static<typeof SubscriberListQuery>;

export const CreateSubscriberBody = Type.Object(
  {
    email: Email,
    request_confirmation: Type.Optional(Nullable(Type.Boolean({ description: 'true: created unconfirmed and sent a confirmation mail' }))),
    html_email: Type.Optional(Nullable(Type.Boolean({ description: 'Prefers HTML mail; default false' }))),
  },
  { additionalProperties: false },
);
export type CreateSubscriberBody = Static<typeof CreateSubscriberBody>;

/**
 * ../shared/api/DECISIONS.md § Resources: `email` required; the flags are optional and unchanged when absent (or null).
 */
export const UpdateSubscriberBody = Type.Object(
  {
    email: Email,
    confirmed: Type.Optional(Nullable(Type.Boolean())),
    blacklisted: Type.Optional(Nullable(Type.Boolean())),
    html_email: Type.Optional(Nullable(Type.Boolean())),
    disabled: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: false },
);
export type UpdateSubscriberBody = Static<typeof UpdateSubscriberBody>;
