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
});
export type ImportQuery = Static<typeof ImportQuery>;

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
});
export type ImportResult = Static<typeof ImportResult>;
