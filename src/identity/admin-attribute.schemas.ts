import { Type, type Static } from '@sinclair/typebox';
import { Id, NonBlank, Nullable } from '../shared/schemas.js';
import { Administrator } from './administrator.schemas.js';

/** The types an administrator attribute may be created with (phpList's admin attribute type validator). */
export const ADMIN_ATTRIBUTE_TYPES = ['hidden', 'textline'] as const;
export type AdminAttributeType = (typeof ADMIN_ATTRIBUTE_TYPES)[number];

/** Longest attribute value accepted (a Postgres `text` holds more; this keeps one row reasonable). */
export const MAX_VALUE_LENGTH = 65_535;

const AttributeTypeInput = Type.Unsafe<AdminAttributeType>({
  type: 'string',
  enum: [...ADMIN_ATTRIBUTE_TYPES],
  errorMessage: `Invalid type. Allowed values: ${ADMIN_ATTRIBUTE_TYPES.join(', ')}.`,
  description: 'Absent or null means textline',
});

const Int32 = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });

/** Reference §6.3, keys in phpList's order; no `table_name`. `type` is the stored string (legacy rows may differ). */
export const AdminAttributeDefinition = Type.Object({
  id: Id,
  name: Type.String(),
  type: Nullable(Type.String()),
  list_order: Nullable(Type.Integer()),
  default_value: Nullable(Type.String()),
  required: Type.Boolean(),
});
export type AdminAttributeDefinition = Static<typeof AdminAttributeDefinition>;

export const CreateAdminAttributeDefinitionBody = Type.Object(
  {
    name: NonBlank({ maxLength: 255 }),
    type: Type.Optional(Nullable(AttributeTypeInput)),
    order: Type.Optional(Nullable(Int32)),
    default_value: Type.Optional(Nullable(Type.String({ maxLength: MAX_VALUE_LENGTH }))),
    required: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type CreateAdminAttributeDefinitionBody = Static<typeof CreateAdminAttributeDefinitionBody>;

/** Same fields as create; `name` stays required (phpList's one request DTO), the others change only when sent. */
export const UpdateAdminAttributeDefinitionBody = Type.Object(
  {
    name: NonBlank({ maxLength: 255 }),
    type: Type.Optional(Nullable(AttributeTypeInput)),
    order: Type.Optional(Nullable(Int32)),
    default_value: Type.Optional(Nullable(Type.String({ maxLength: MAX_VALUE_LENGTH }))),
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type UpdateAdminAttributeDefinitionBody = Static<typeof UpdateAdminAttributeDefinitionBody>;

/** Reference §6.4: no `id` of its own; `value` falls back to the definition's default. */
export const AdminAttributeValue = Type.Object({
  administrator: Administrator,
  definition: AdminAttributeDefinition,
  value: Nullable(Type.String()),
});
export type AdminAttributeValue = Static<typeof AdminAttributeValue>;

export const AdminAttributeValueBody = Type.Object(
  {
    value: Type.Optional(Nullable(Type.String({ maxLength: MAX_VALUE_LENGTH, description: "Absent or null: the definition's default" }))),
  },
  { additionalProperties: false },
);
export type AdminAttributeValueBody = Static<typeof AdminAttributeValueBody>;
