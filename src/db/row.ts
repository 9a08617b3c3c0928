/*
 * Typed readers for the rows of raw SQL (see `queryRows` in client.ts). A row arrives as the database names its
 * columns (snake_case) with the driver's own value types, which differ: node-postgres gives `bigint`/`numeric` as
 * strings and PGlite as numbers, timestamps may come as Date or text. A row mapper reads each column through one of
 * these, so the domain object it returns is camelCase and typed without an `as` cast, and a column that is missing
 * or of another type fails loudly, naming the column, instead of travelling on as `undefined`.
 */

/** One row of a raw query, as the driver answers it. */
export type Row = Readonly<Record<string, unknown>>;

function wrong(column: string, expected: string, value: unknown): Error {
  return new Error(`column ${column}: expected ${expected}, got ${value === null ? 'null' : typeof value}`);
}

/** An integer column (int, bigint as text, a count). */
export function int(row: Row, column: string): number {
  const value = row[column];
  const n = typeof value === 'number' ? value : typeof value === 'string' || typeof value === 'bigint' ? Number(value) : NaN;
  if (!Number.isInteger(n)) throw wrong(column, 'an integer', value);
  return n;
}

export function intOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : int(row, column);
}

/** A numeric column that may have a fraction (numeric, real, an average). */
export function num(row: Row, column: string): number {
  const value = row[column];
  const n = typeof value === 'number' ? value : typeof value === 'string' || typeof value === 'bigint' ? Number(value) : NaN;
  if (Number.isNaN(n)) throw wrong(column, 'a number', value);
  return n;
}

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw wrong(column, 'text', value);
  return value;
}

export function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

export function bool(row: Row, column: string): boolean {
  const value = row[column];
  if (typeof value !== 'boolean') throw wrong(column, 'a boolean', value);
  return value;
}

/** A timestamp column (a Date from one driver, text from the other, or a Date fed back through a routine). */
export function timestamp(row: Row, column: string): Date {
  const value = row[column];
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw wrong(column, 'a timestamp', value);
  return date;
}

export function timestampOrNull(row: Row, column: string): Date | null {
  return row[column] === null ? null : timestamp(row, column);
}

/**
 * A json column holding an array of objects (a `json_agg` of `json_build_object`s), each to be read with the readers
 * above. The drivers parse json; text is parsed here in case a connection keeps it as text.
 */
export function jsonRows(row: Row, column: string): Row[] {
  const raw = row[column];
  const value: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'object' && item !== null)) throw wrong(column, 'a json array of objects', raw);
  return value;
}
