import { Type, type Static } from '@sinclair/typebox';

/** The options may come in the query string as well as in form fields, before or after the file. */
export const ImportQuery = Type.Object({
  list_id: Type.Optional(
    Type.String({ description: 'Subscribe every imported row to this list (checked before the file is read when sent before it)' }),
  ),
  update_existing: Type.Optional(Type.String({ description: '`1`, `true`, `on` or `yes`: overwrite existing subscribers; default false' })),
  skip_invalid_emails: Type.Optional(
    Type.String({ description: 'Default true: skip rows with an invalid address; false: import them as `invalid_<email>`, never mailed' }),
  ),
  send_confirmation: Type.Optional(
    Type.String({ description: 'Default true: new unconfirmed list members get the confirmation mail; false: no mail' }),
  ),
  mark_confirmed: Type.Optional(
    Type.String({
      description: 'Ours. `1`, `true`, `on` or `yes`: a file without a `confirmed` column is imported confirmed (no mail); default false',
    }),
  ),
  html_email: Type.Optional(
    Type.String({
      description:
        'Ours. `1`, `true`, `on` or `yes` (anything else: false): whether a new subscriber whose row has no `html_email` cell ' +
        'gets HTML mail; default the SUBSCRIBER_HTML_DEFAULT setting (on). Existing subscribers keep theirs',
    }),
  ),
  columns: Type.Optional(
    Type.String({
      description:
        'Ours. A JSON object mapping header names (as written) to their use: `"email"`, `null` (not imported), `"confirmed"`, ' +
        '`"blacklisted"`, `"html_email"`, `"disabled"`, `"extra_data"`, `"foreignkey"`, or an attribute definition id (integer). ' +
        'Columns it does not name are matched by their header name. A name not in the header, an unknown attribute id, two columns ' +
        'mapped to one place or no email column: 422',
    }),
  ),
});
export type ImportQuery = Static<typeof ImportQuery>;

export const ImportReportLink = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The report of this import, downloadable for 24 hours by the administrator who ran it' }),
  url: Type.String({ description: 'Where to GET the CSV (same authentication as the API)' }),
  rows: Type.Integer({ description: 'Rows in the report' }),
});

export const ImportReportCsv = Type.String({
  description: "The CSV: the file's header plus `line`, `outcome`, `reason`; then one row per reported row",
});

export const ImportReportParams = Type.Object({ id: Type.String({ description: 'The `report.id` of an import answer' }) });
export type ImportReportParams = Static<typeof ImportReportParams>;

export const ImportResult = Type.Object({
  imported: Type.Integer({ description: 'Subscribers created' }),
  updated: Type.Integer({ description: 'Existing subscribers overwritten (update_existing)' }),
  skipped: Type.Integer({ description: 'Rows that created or updated nobody' }),
  errors: Type.Array(Type.String(), { description: 'One line per rejected row, `Line <n>: …` (the header is line 1)' }),
  ignored_columns: Type.Array(Type.String(), {
    description: 'Ours: header names that set nothing (no such field or attribute definition, never imported, or repeated)',
  }),
  unconfirmed: Type.Integer({
    description: 'Ours: of the subscribers created or updated, those left unconfirmed, whom campaigns do not reach',
  }),
  duplicates_in_file: Type.Integer({
    description: 'Ours: rows whose address (or foreign key) an earlier row of the file already created or updated',
  }),
  existing_subscribers: Type.Integer({
    description: 'Ours: rows whose address (or foreign key) belonged to a subscriber before the import (updated with update_existing, else left)',
  }),
  report: Type.Union([ImportReportLink, Type.Null()], {
    description: 'Ours: the CSV of rejected, duplicate and existing rows with their reasons; null when every row created a subscriber',
  }),
});
export type ImportResult = Static<typeof ImportResult>;
