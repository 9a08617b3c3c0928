import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../shared/pagination.js';
import { DateTime, Email, Id, Nullable } from '../shared/schemas.js';

/** Reference §6.13: answer of add and info. `added` is null for a subscriber flagged without an entry. */
export const BlacklistEntry = Type.Object({
  email: Type.String(),
  added: Nullable(DateTime),
  reason: Nullable(Type.String()),
});
export type BlacklistEntry = Static<typeof BlacklistEntry>;

export const BlacklistCheck = Type.Object({
  blacklisted: Type.Boolean(),
  reason: Nullable(Type.String()),
});
export type BlacklistCheck = Static<typeof BlacklistCheck>;

/** The one error body of another shape, kept for phpList compatibility (reference §4.1). */
/** phpList answers `{"error": …}` here; `message` is added beside it, as every error body carries one. */
export const NotBlacklisted = Type.Object({ message: Type.String(), error: Type.String() });

export const AddToBlacklistBody = Type.Object(
  {
    email: Email,
    reason: Type.Optional(Nullable(Type.String({ maxLength: 65_535 }))),
  },
  { additionalProperties: false },
);
export type AddToBlacklistBody = Static<typeof AddToBlacklistBody>;

export const EmailParams = Type.Object({ email: Type.String({ maxLength: 255 }) });

/** An entry of `GET /blacklist` (ours): the phpList entry with the id its cursor pages by. */
export const ListedBlacklistEntry = Type.Object({
  id: Id,
  email: Type.String(),
  added: DateTime,
  reason: Nullable(Type.String()),
});
export type ListedBlacklistEntry = Static<typeof ListedBlacklistEntry>;

export const BlacklistListQuery = Type.Object({
  ...PageQuery.properties,
  email: Type.Optional(Type.String({ maxLength: 255, description: 'Case-insensitive substring of the address (`%`, `_` and `\\` literal)' })),
});
export type BlacklistListQuery = Static<typeof BlacklistListQuery>;
