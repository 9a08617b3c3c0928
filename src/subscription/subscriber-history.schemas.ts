import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Id, Nullable } from '../shared/schemas.js';
import { PageQuery } from '../shared/pagination.js';

/** Reference §6.9, keys in phpList's order. */
export const SubscriberHistory = Type.Object({
  id: Id,
  ip: Nullable(Type.String()),
  created_at: DateTime,
  summary: Nullable(Type.String()),
  detail: Nullable(Type.String()),
  system_info: Nullable(Type.String()),
});
export type SubscriberHistory = Static<typeof SubscriberHistory>;

/** Cursor page plus phpList's filters; `summery` is phpList's own (misspelt) name, `summary` is accepted too. */
export const HistoryQuery = Type.Object({
  ...PageQuery.properties,
  ip: Type.Optional(Type.String({ description: 'Exact client address' })),
  date_from: Type.Optional(Type.String({ description: 'Entries on or after this date (YYYY-MM-DD or ISO 8601)' })),
  summery: Type.Optional(Type.String({ description: 'Exact summary (phpList spelling)' })),
  summary: Type.Optional(Type.String({ description: 'Exact summary' })),
});
export type HistoryQuery = Static<typeof HistoryQuery>;

/** Who did something and from where, written into each history entry. */
export interface HistoryOrigin {
  readonly ip: string | null;
  readonly userAgent: string | null;
}
