import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Email, Id, NonBlank, Nullable } from '../shared/schemas.js';

/** New administrator passwords (create, change, reset, ADMIN_PASSWORD for a new one): stored ones of any length still work. */
export const NEW_PASSWORD_MIN = 12;

export const PRIVILEGES = ['subscribers', 'campaigns', 'statistics', 'settings'] as const;
export type Privilege = (typeof PRIVILEGES)[number];

export const Privileges = Type.Object({
  subscribers: Type.Boolean(),
  campaigns: Type.Boolean(),
  statistics: Type.Boolean(),
  settings: Type.Boolean(),
});

/** Privilege flags in a request: each optional, no other keys. */
export const PrivilegesInput = Type.Object(
  {
    subscribers: Type.Optional(Type.Boolean()),
    campaigns: Type.Optional(Type.Boolean()),
    statistics: Type.Optional(Type.Boolean()),
    settings: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Reference §6.1, keys in phpList's order. */
export const Administrator = Type.Object({
  id: Id,
  login_name: Type.String(),
  email: Type.String(),
  super_user: Type.Boolean(),
  privileges: Privileges,
  created_at: Nullable(DateTime),
  disabled: Type.Boolean({ description: 'Ours (additive): a disabled administrator cannot sign in' }),
});
export type Administrator = Static<typeof Administrator>;

export const CreateAdministratorBody = Type.Object(
  {
    login_name: NonBlank({ minLength: 3, maxLength: 255 }),
    password: NonBlank({ minLength: NEW_PASSWORD_MIN, maxLength: 255, description: `${NEW_PASSWORD_MIN} characters or more` }),
    email: Email,
    super_user: Type.Optional(Type.Boolean({ default: false })),
    privileges: Type.Optional(PrivilegesInput),
  },
  { additionalProperties: false },
);
export type CreateAdministratorBody = Static<typeof CreateAdministratorBody>;

export const UpdateAdministratorBody = Type.Object(
  {
    login_name: Type.Optional(Nullable(NonBlank({ minLength: 3, maxLength: 255 }))),
    password: Type.Optional(
      Nullable(NonBlank({ minLength: NEW_PASSWORD_MIN, maxLength: 255, description: `${NEW_PASSWORD_MIN} characters or more` })),
    ),
    email: Type.Optional(Nullable(Email)),
    super_user: Type.Optional(Nullable(Type.Boolean())),
    privileges: Type.Optional(Nullable(PrivilegesInput)),
    disabled: Type.Optional(Nullable(Type.Boolean({ description: 'Ours: true ends their sessions and refuses their sign-in; not for yourself' }))),
  },
  { additionalProperties: false },
);
export type UpdateAdministratorBody = Static<typeof UpdateAdministratorBody>;
