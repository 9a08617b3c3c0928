import assert from 'node:assert/strict';

/**
 * An import's answer with its report's random id checked (a UUID, and the url naming it) and then written as `ID`, so
 * tests can compare whole answers.
 */
export function importAnswer(res: { json(): unknown }): Record<string, unknown> {
  const body = res.json() as Record<string, unknown> & { report?: { id: string; url: string; rows: number } | null };
  if (!body.report) return body;
  assert.match(body.report.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(body.report.url, `/api/v2/import-reports/${body.report.id}`);
  return { ...body, report: { id: 'ID', url: 'URL', rows: body.report.rows } };
}

/** The report of `rows` rows as `importAnswer` writes it. */
export const reportOf = (rows: number) => ({ id: 'ID', url: 'URL', rows });

/** The answer's fields that are ours beyond phpList's, with nothing to say. */
export const NOTHING_MORE: {
  ignored_columns: string[];
  unconfirmed: number;
  duplicates_in_file: number;
  existing_subscribers: number;
  report: ReturnType<typeof reportOf> | null;
} = { ignored_columns: [], unconfirmed: 0, duplicates_in_file: 0, existing_subscribers: 0, report: null };
