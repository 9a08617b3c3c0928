import { Type, type Static } from '@sinclair/typebox';
import { Email, Id, Nullable, StringEnum } from '../shared/schemas.js';

/** `POST /campaigns/{id}/preview`: whom to render it for, by id or by address, or a sample subscriber (exactly one). */
export const PreviewBody = Type.Object(
  {
    subscriber_id: Type.Optional(Id),
    email: Type.Optional(Email),
    sample: Type.Optional(Type.Boolean({ description: 'true: sample values for every placeholder, links that do not work' })),
  },
  { additionalProperties: false },
);
export type PreviewBody = Static<typeof PreviewBody>;

export const Preview = Type.Object({
  subscriber: Type.Union([Type.Object({ id: Id, email: Type.String() }), Type.Null()], { description: 'null for the sample preview' }),
  subject: Type.String(),
  from: Type.String({ description: 'The From header as the mail carries it (`Name <addr>`)' }),
  reply_to: Nullable(Type.String()),
  format: StringEnum(['html', 'text'] as const, { description: '`text` when this subscriber gets text only' }),
  html: Nullable(Type.String({ description: 'The HTML part, template applied, links as written (not tracked)' })),
  text: Type.String({ description: 'The plain-text part' }),
});
export type Preview = Static<typeof Preview>;

export const CHECK_CODES = ['no_unsubscribe_link', 'link_not_full_url', 'image_not_full_url', 'empty_text_part', 'unknown_placeholder'] as const;
export type CheckCode = (typeof CHECK_CODES)[number];
export const CHECK_PARTS = ['subject', 'body', 'text_message', 'footer', 'template'] as const;
export type CheckPart = (typeof CHECK_PARTS)[number];

export const Check = Type.Object({
  code: StringEnum(CHECK_CODES),
  message: Type.String(),
  part: Nullable(StringEnum(CHECK_PARTS, { description: 'Where it comes from; null for the campaign as a whole' })),
  line: Nullable(Type.Integer({ minimum: 1, description: 'Line of `part` (1-based), when it comes from one' })),
});
export type Check = Static<typeof Check>;

export const Checks = Type.Object({ warnings: Type.Array(Check) });
export type Checks = Static<typeof Checks>;

export const Placeholders = Type.Object({
  items: Type.Array(
    Type.Object({
      placeholder: Type.String({ description: 'As written in a campaign, e.g. `[EMAIL]`' }),
      description: Type.String(),
      kind: StringEnum(['subscriber', 'attribute', 'link', 'campaign'] as const),
    }),
  ),
});
export type Placeholders = Static<typeof Placeholders>;
