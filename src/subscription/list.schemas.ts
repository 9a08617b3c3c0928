import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Id, IdParam, NonBlank, Nullable } from '../shared/schemas.js';

/** Reference §6.7, keys in phpList's order. No owner, no counts. */
export const SubscriberList = Type.Object({
  id: Id,
  name: Type.String(),
  created_at: DateTime,
  description: Nullable(Type.String()),
  list_position: Nullable(Type.Integer()),
  subject_prefix: Nullable(Type.String()),
  public: Type.Boolean(),
  category: Type.String(),
  rss_feed: Nullable(Type.String()),
});
export type SubscriberList = Static<typeof SubscriberList>;

/** Create and PUT share one body; PUT replaces every field (absent → default), as phpList does. */
export const ListBody = Type.Object(
  {
    name: NonBlank(),
    description: Type.Optional(Nullable(Type.String({ maxLength: 65_535 }))),
    list_position: Type.Optional(Nullable(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 }))),
    public: Type.Optional(Type.Boolean()),
    category: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    subject_prefix: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    rss_feed: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  },
  { additionalProperties: false },
);
export type ListBody = Static<typeof ListBody>;

export const ListParams = Type.Object({ listId: IdParam });

/** The 403 message of the list and list-member routes. */
export const LISTS_DENIED = 'You are not allowed to manage lists.';
