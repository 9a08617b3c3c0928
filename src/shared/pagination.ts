import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** Cursor query of every paginated list (reference §3). Lenient: bad values are normalised, never rejected. */
export const PageQuery = Type.Object({
  after_id: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Return items with id greater than this' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Page size, clamped to 1..100' })),
});
export type PageQuery = Static<typeof PageQuery>;

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    pagination: Type.Object({
      total: Type.Integer(),
      limit: Type.Integer(),
      has_more: Type.Boolean(),
      next_cursor: Type.Union([Type.Integer(), Type.Null()]),
    }),
  });
}

export interface PageResult<T> {
  items: T[];
  pagination: { total: number; limit: number; has_more: boolean; next_cursor: number | null };
}

/**
 * Builds the envelope. `has_more` is phpList's heuristic (a full page), `next_cursor` the last item's id
 * (null on an empty page, or when items have no id of their own).
 */
export function toPage<T>(items: T[], total: number, limit: number, cursorOf: ((item: T) => number) | null): PageResult<T> {
  const last = items[items.length - 1];
  return {
    items,
    pagination: {
      total,
      limit,
      has_more: items.length === limit,
      next_cursor: last !== undefined && cursorOf ? cursorOf(last) : null,
    },
  };
}

/**
 * phpList's reading of the cursor parameters: a non-numeric `after_id` is 0; `limit` is clamped to 1..100
 * with 0, negative or non-numeric read as 1. Applied to the raw query before validation.
 */
export function normalisePageQuery(query: Record<string, unknown>): void {
  if ('after_id' in query) {
    const n = toInt(query.after_id);
    query.after_id = n > 0 ? Math.min(n, 2_147_483_647) : 0;
  }
  if ('limit' in query) {
    query.limit = Math.min(MAX_LIMIT, Math.max(1, toInt(query.limit)));
  }
}

function toInt(value: unknown): number {
  const text = Array.isArray(value) ? String(value[0]) : String(value);
  return /^-?\d+$/.test(text.trim()) ? Number.parseInt(text, 10) : 0;
}

/** The effective cursor and limit of a normalised query. */
export function cursorOf(query: PageQuery): { afterId: number; limit: number } {
  return { afterId: query.after_id ?? 0, limit: query.limit ?? DEFAULT_LIMIT };
}
