import { Type, type Static } from '@sinclair/typebox';
import { Administrator } from '../identity/index.js';
import { Email, Id, IdParam, NonBlank, Nullable } from '../shared/schemas.js';

/** Reference §6.12; `owner` is null when the owning administrator was deleted (reference [bug] 14). */
export const SubscribePage = Type.Object({
  id: Id,
  title: Type.String(),
  active: Type.Boolean(),
  owner: Nullable(Administrator),
});
export type SubscribePage = Static<typeof SubscribePage>;

/** Create and PUT share one body; PUT replaces both fields (absent `active` → false), as phpList does. */
export const SubscribePageBody = Type.Object(
  {
    title: NonBlank({ maxLength: 255 }),
    active: Type.Optional(Type.Boolean({ default: false, description: 'Whether the public page is live' })),
  },
  { additionalProperties: false },
);
export type SubscribePageBody = Static<typeof SubscribePageBody>;

/** One setting of a page; `id` is the page's id, repeated on every item (reference §6.12). */
export const SubscribePageDataItem = Type.Object({
  id: Id,
  name: Type.String(),
  data: Nullable(Type.String()),
});
export type SubscribePageDataItem = Static<typeof SubscribePageDataItem>;

export const SubscribePageDataBody = Type.Object(
  {
    name: NonBlank({ maxLength: 255, description: 'The setting, e.g. intro, header, footer, thankyoupage, button, lists' }),
    value: Type.Optional(Nullable(Type.String({ maxLength: 65_535, description: 'Its text; absent or null clears it' }))),
  },
  { additionalProperties: false },
);
export type SubscribePageDataBody = Static<typeof SubscribePageDataBody>;

export const SubscribePageParams = Type.Object({ pageId: IdParam });

/** A list as a public page offers it: no owner, position or settings. */
export const OfferedList = Type.Object({
  id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
});

export const PublicSubscribePage = Type.Object({
  id: Id,
  title: Type.String(),
  data: Type.Record(Type.String(), Nullable(Type.String()), {
    description: "The page's settings by name (intro, header, footer, thankyoupage, button, …), as stored",
  }),
  lists: Type.Array(OfferedList, { description: 'The public lists of the `lists` setting, in that order' }),
  attributes: Type.Array(Type.Object({ id: Id, name: Type.String(), type: Nullable(Type.String()), required: Type.Boolean() }), {
    description: 'The subscriber attributes of the `attributes` setting, in that order',
  }),
});
export type PublicSubscribePage = Static<typeof PublicSubscribePage>;

export const PublicSubscribeBody = Type.Object(
  {
    email: Email,
    list_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'One of the lists the page offers' }),
    attributes: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 65_535 }), {
        description: 'Attribute values by attribute name; only attributes the page offers',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PublicSubscribeBody = Static<typeof PublicSubscribeBody>;

export const PublicUnsubscribeBody = Type.Object(
  {
    email: Email,
    token: Type.String({
      minLength: 1,
      maxLength: 300,
      description: "The subscriber's unsubscribe token: the last part of the unsubscribe link in every campaign mail",
    }),
  },
  { additionalProperties: false },
);
export type PublicUnsubscribeBody = Static<typeof PublicUnsubscribeBody>;
