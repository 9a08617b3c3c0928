import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, StringEnum } from '../shared/schemas.js';

export const DATE_TYPES = ['any', 'signup', 'changed', 'changelog', 'subscribed'] as const;

/** phpList's default column list (reference §5.5). */
export const DEFAULT_COLUMNS = [
  'id',
  'email',
  'confirmed',
  'blacklisted',
  'bounceCount',
  'createdAt',
  'updatedAt',
  'uniqueId',
  'htmlEmail',
  'rssFrequency',
  'disabled',
  'extraData',
  'foreignKey',
];

const BOOLEAN_TEXT = ['true', 'false', '1', '0'];
const Day = (name: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    errorMessage: 'This value is not a valid datetime.',
    description: `${name}, YYYY-MM-DD (that day included)`,
  });
const Columns = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
  maxItems: 200,
  description: 'Columns in this order: subscriber fields (`email`, `bounceCount` or `bounce_count` …) and attribute names',
});
const EscapeFormulas = Type.Boolean({
  description: "Default true: a cell starting with = + - @ (or tab, CR) gets a leading ' so spreadsheets do not run it",
});

/** A boolean, or phpList's `"true"`, `"false"`, `"1"`, `"0"`; one enum so a wrong value gets one clear message. */
function BooleanFilter(name: string) {
  return Type.Unsafe<boolean | string>({
    enum: [true, false, ...BOOLEAN_TEXT],
    errorMessage: `${name} must be one of: true, false, 1, 0`,
  });
}

/** `POST /subscribers/export`: every field optional (reference §5.5). */
export const ExportBody = Type.Object(
  {
    date_type: Type.Optional(StringEnum(DATE_TYPES, { description: 'Which date date_from/date_to filter; default any (none)' })),
    list_id: Type.Optional(Nullable(Id)),
    date_from: Type.Optional(Nullable(Day('From'))),
    date_to: Type.Optional(Nullable(Day('To'))),
    is_confirmed: Type.Optional(Nullable(BooleanFilter('is_confirmed'))),
    is_blacklisted: Type.Optional(Nullable(BooleanFilter('is_blacklisted'))),
    columns: Type.Optional(Nullable(Columns)),
    escape_formulas: Type.Optional(Nullable(EscapeFormulas)),
  },
  { additionalProperties: false },
);
export type ExportBody = Static<typeof ExportBody>;

/** `GET /subscribers/export` (the alias phpList's JS client calls): the same, as query parameters. */
export const ExportQuery = Type.Object({
  date_type: Type.Optional(StringEnum(DATE_TYPES)),
  list_id: Type.Optional(Id),
  date_from: Type.Optional(Day('From')),
  date_to: Type.Optional(Day('To')),
  is_confirmed: Type.Optional(
    Type.Unsafe<string>({ type: 'string', enum: BOOLEAN_TEXT, errorMessage: 'is_confirmed must be one of: true, false, 1, 0' }),
  ),
  is_blacklisted: Type.Optional(
    Type.Unsafe<string>({ type: 'string', enum: BOOLEAN_TEXT, errorMessage: 'is_blacklisted must be one of: true, false, 1, 0' }),
  ),
  columns: Type.Optional(Columns),
  escape_formulas: Type.Optional(Type.Boolean()),
});
export type ExportQuery = Static<typeof ExportQuery>;

export const ExportCsv = Type.String({ description: 'The CSV file: a header row, then one row per subscriber in id order' });
