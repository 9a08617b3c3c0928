import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { AppContext } from '../context.js';
import { ValidationError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { displayAttributeValue } from './attribute-value.rules.js';
import { loadDefinitionsWithOptions, type DefinitionWithOptions } from './attribute.repository.js';
import { requireList } from './list.service.js';
import * as repo from './subscriber-export.repository.js';
import { DEFAULT_COLUMNS, type ExportBody } from './subscriber-export.schemas.js';

/** Subscribers per query: big enough to keep round trips few, small enough that memory stays flat. */
export const EXPORT_BATCH_SIZE = 2000;

type Field = (row: repo.ExportRow) => string;
const flag = (value: boolean) => (value ? '1' : '0');

/** Subscriber fields by every name phpList or we use for them (camelCase and snake_case). */
const FIELDS: Record<string, Field> = {
  id: (r) => String(r.id),
  email: (r) => r.email,
  confirmed: (r) => flag(r.confirmed),
  blacklisted: (r) => flag(r.blacklisted),
  bouncecount: (r) => String(r.bounceCount),
  createdat: (r) => toAtom(r.createdAt),
  updatedat: (r) => toAtom(r.updatedAt),
  uniqueid: (r) => r.uniqueId,
  htmlemail: (r) => flag(r.htmlEmail),
  // phpList's column, not stored here: always empty.
  rssfrequency: () => '',
  disabled: (r) => flag(r.disabled),
  extradata: (r) => r.extraData ?? '',
  foreignkey: (r) => r.foreignKey ?? '',
};

type Column = { kind: 'field'; read: Field } | { kind: 'attribute'; definition: DefinitionWithOptions };

export interface ExportRequest extends Omit<ExportBody, 'columns'> {
  columns?: string[] | null;
}

function parseBoolean(value: boolean | string | null | undefined): boolean | null {
  if (value === null || value === undefined) return null;
  return value === true || value === 'true' || value === '1';
}

function parseDay(field: string, value: string | null | undefined): Date | null {
  if (!value) return null;
  const day = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw ValidationError.field(field, 'This value is not a valid datetime.');
  }
  return day;
}

/** Whether a spreadsheet would read the cell as a formula. Plain numbers (`-5`, `+3.2`) are left alone. */
function looksLikeFormula(value: string): boolean {
  return value !== '' && '=+-@\t\r'.includes(value[0]!) && !/^[+-]?\d+(\.\d+)?$/.test(value);
}

/** The CSV's header names and how each column is read. */
export interface ExportTable {
  names: string[];
  columns: Column[];
}

/** The columns asked for (the default set when none), each a subscriber field or an attribute; 422 naming unknown ones. */
export async function exportTable(ctx: AppContext, asked: string[] | null | undefined): Promise<ExportTable> {
  const names = asked && asked.length > 0 ? asked : DEFAULT_COLUMNS;
  const definitions = await loadDefinitionsWithOptions(ctx.db);
  const byName = new Map(definitions.map((d) => [d.name.trim().toLowerCase(), d]));
  const errors: Record<string, string[]> = {};
  const columns: Column[] = names.map((name, i) => {
    const key = name.trim().toLowerCase();
    const field = FIELDS[key.replace(/_/g, '')];
    const definition = byName.get(key);
    // A subscriber field wins over an attribute of the same name; the attribute's own name is then ambiguous.
    if (field) return { kind: 'field', read: field };
    if (definition) return { kind: 'attribute', definition };
    errors[`columns[${i}]`] = [`Unknown column "${name}": not a subscriber field nor an attribute name.`];
    return { kind: 'field', read: () => '' };
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { names, columns };
}

/**
 * Checks the request (columns, dates, list) and answers the file name and the CSV as a stream. The stream reads
 * one keyset batch at a time and only when the client has taken the previous one, so memory does not depend on
 * how many subscribers there are.
 */
export async function exportSubscribers(ctx: AppContext, request: ExportRequest): Promise<{ filename: string; body: Readable }> {
  const table = await exportTable(ctx, request.columns);
  const dateType = request.date_type ?? 'any';
  const listId = request.list_id ?? null;
  if (dateType === 'subscribed' && listId === null) {
    throw ValidationError.field('date_type', 'The subscribed date needs a list_id.');
  }
  const from = parseDay('date_from', request.date_from);
  const toDay = parseDay('date_to', request.date_to);
  // Both bounds are days, both included: the range ends where the day after date_to begins.
  const to = toDay ? new Date(toDay.getTime() + 86_400_000) : null;
  const dateColumn = ({ signup: 'created', changed: 'updated', subscribed: 'subscribed' } as const)[dateType as 'signup'];
  if (listId !== null) await requireList(ctx, listId);

  const filter: repo.ExportFilter = {
    listId,
    confirmed: parseBoolean(request.is_confirmed),
    blacklisted: parseBoolean(request.is_blacklisted),
    dates: dateColumn && (from || to) ? { column: dateColumn, from, to } : null,
  };
  async function* batches(): AsyncGenerator<repo.ExportRow[]> {
    let afterId = 0;
    while (true) {
      const rows = await repo.exportBatch(ctx.db, filter, afterId, EXPORT_BATCH_SIZE);
      if (rows.length === 0) return;
      yield rows.filter((row) => row.wanted);
      afterId = rows[rows.length - 1]!.id;
      if (rows.length < EXPORT_BATCH_SIZE) return;
    }
  }
  return { filename: exportFilename(), body: csvStream(ctx, table, request.escape_formulas ?? true, batches()) };
}

/** `subscribers_export_<today>.csv`. */
export function exportFilename(): string {
  return `subscribers_export_${new Date().toISOString().slice(0, 10)}.csv`;
}

/**
 * The CSV of these rows as a stream: the header, then each batch with the attribute values of its id range (batches
 * come in id order). A batch is read only when the client has taken the previous one, so memory stays flat.
 */
export function csvStream(ctx: AppContext, table: ExportTable, guard: boolean, batches: AsyncIterable<repo.ExportRow[]>): Readable {
  const { names, columns } = table;
  const attributeIds = columns.flatMap((c) => (c.kind === 'attribute' ? [c.definition.id] : []));
  const escape = (cell: string) => (guard && looksLikeFormula(cell) ? `'${cell}` : cell);
  async function* lines(): AsyncGenerator<string> {
    yield stringify([names.map(escape)], { record_delimiter: 'windows' });
    for await (const rows of batches) {
      if (rows.length === 0) continue;
      const values = new Map<string, string | null>();
      if (attributeIds.length > 0) {
        for (const v of await repo.attributeValues(ctx.db, rows[0]!.id, rows[rows.length - 1]!.id, attributeIds)) {
          values.set(`${v.subscriberId}:${v.definitionId}`, v.value);
        }
      }
      const records = rows.map((row) =>
        columns.map((column) => {
          const cell =
            column.kind === 'field'
              ? column.read(row)
              : displayAttributeValue(column.definition, values.get(`${row.id}:${column.definition.id}`) ?? null);
          return escape(cell);
        }),
      );
      yield stringify(records, { record_delimiter: 'windows' });
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
