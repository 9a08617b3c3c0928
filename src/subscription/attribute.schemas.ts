import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParam, NonBlank, Nullable } from '../shared/schemas.js';
import { Subscriber } from './subscriber.schemas.js';

/** The types a subscriber attribute may have (reference §7.7); `text` and `number` exist in phpList but are refused. */
export const ATTRIBUTE_TYPES = ['textline', 'hidden', 'creditcardno', 'select', 'date', 'checkbox', 'textarea', 'radio', 'checkboxgroup'] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** Types whose values are options (reference §7.7 "multi-valued"); a type may change only within its family. */
export const OPTION_TYPES: ReadonlySet<string> = new Set(['select', 'radio', 'checkboxgroup', 'checkbox']);

export const MAX_VALUE_LENGTH = 65_535;
const Int32 = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });

export const AttributeOption = Type.Object({ id: Id, name: Type.String(), list_order: Type.Integer() });
export type AttributeOption = Static<typeof AttributeOption>;

/** Reference §6.10. */
export const AttributeDefinition = Type.Object({
  id: Id,
  name: Type.String(),
  type: Nullable(Type.String()),
  list_order: Nullable(Type.Integer()),
  default_value: Nullable(Type.String()),
  required: Type.Boolean(),
  subscriber_editable: Type.Boolean({ description: 'Whether subscribers may change their value in the preference centre (Mailroom addition)' }),
  options: Type.Array(AttributeOption),
  placeholder: Nullable(
    Type.String({
      description:
        "How a campaign writes this attribute's value, e.g. `[FIRST NAME]`; null when the name cannot be a placeholder (Mailroom addition)",
    }),
  ),
});
export type AttributeDefinition = Static<typeof AttributeDefinition>;

const OptionInput = Type.Object(
  {
    id: Type.Optional(Nullable(Id)),
    name: NonBlank({ maxLength: 255 }),
    list_order: Type.Optional(Nullable(Int32)),
  },
  { additionalProperties: false },
);
export type OptionInput = Static<typeof OptionInput>;

/** Case-insensitive type names are accepted (phpList), so the check is in the service, not an enum here. */
export const AttributeDefinitionBody = Type.Object(
  {
    name: NonBlank({ maxLength: 255 }),
    type: Type.String({ maxLength: 50, description: `One of ${ATTRIBUTE_TYPES.join(', ')} (case-insensitive)` }),
    order: Type.Optional(Nullable(Int32)),
    default_value: Type.Optional(Nullable(Type.String({ maxLength: MAX_VALUE_LENGTH }))),
    required: Type.Optional(Type.Boolean()),
    subscriber_editable: Type.Optional(
      Type.Boolean({ description: 'Whether subscribers may change their value in the preference centre; default false' }),
    ),
    options: Type.Optional(
      Nullable(
        Type.Array(OptionInput, {
          maxItems: 1000,
          description: 'For select, radio, checkboxgroup and checkbox. On update: the full set (sync rules, reference §7.7)',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type AttributeDefinitionBody = Static<typeof AttributeDefinitionBody>;

export const DefinitionParams = Type.Object({ definitionId: IdParam });
export const SubscriberValueParams = Type.Object({ subscriberId: IdParam, definitionId: IdParam });

/** Reference §6.11; `value` is the stored string (option ids for option types). */
export const SubscriberAttributeValue = Type.Object({
  subscriber: Subscriber,
  definition: AttributeDefinition,
  value: Nullable(Type.String()),
});
export type SubscriberAttributeValue = Static<typeof SubscriberAttributeValue>;

export const SubscriberAttributeValueBody = Type.Object(
  {
    value: Type.Optional(
      Nullable(
        Type.Union(
          [
            Type.String({ maxLength: MAX_VALUE_LENGTH }),
            Type.Boolean(),
            Type.Number(),
            Type.Array(Type.Union([Type.String(), Type.Integer()]), { maxItems: 1000 }),
          ],
          {
            description:
              "Absent or null: the definition's default. select/radio: an option id or name; checkboxgroup: option ids or " +
              'names (array or comma-separated); checkbox: a boolean; date: YYYY-MM-DD',
          },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);
export type SubscriberAttributeValueBody = Static<typeof SubscriberAttributeValueBody>;
