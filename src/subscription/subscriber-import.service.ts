import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { loginNameOf } from '../identity/index.js';
import { asClientError, fieldText, type FormPart } from '../plugins/multipart-form.js';
import { BadRequestError, NotFoundError, PayloadTooLargeError, ValidationError } from '../shared/errors.js';
import { loadDefinitionsWithOptions } from './attribute.repository.js';
import { requireOwnedList } from './list.service.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { writeBatch, type BatchOptions, type BatchTally } from './subscriber-import.batch.js';
import { mapHeader, readRow, type ImportColumns, type ImportRow } from './subscriber-import.columns.js';
import { checkMapping, parseColumnMapping, type ColumnMapping } from './subscriber-import.mapping.js';
import { ImportReport, openReport, reportDir, sweepReports } from './subscriber-import.report.js';
import { CsvFormatError, readCsv } from './subscriber-import.csv.js';
import { newSubscriberHtmlEmail } from './subscriber-defaults.js';
import { queueConfirmationRequests } from './subscriber-confirmation.js';
import { mailQueued } from '../mail/index.js';
import type { ImportQuery, ImportResult } from './subscriber-import.schemas.js';
import { spool, type SpooledFile } from './subscriber-import.spool.js';

/**
 * Rows written per round of bulk statements. Rows of a batch live until it is written, long enough to be promoted
 * out of V8's young generation, so larger batches grow the old generation faster: on 1M rows 2,000 peaked at 306 MB
 * (16,299 rows/s), 1,000 at 294 MB (17,430 rows/s); 5,000 was no faster.
 */
export const IMPORT_BATCH_SIZE = 1000;
/** Error lines kept in the answer; beyond this they are counted in one closing line (memory stays bounded). */
export const MAX_ERROR_LINES = 10_000;

const OPTION_FIELDS = ['list_id', 'update_existing', 'skip_invalid_emails', 'send_confirmation', 'mark_confirmed', 'html_email', 'columns'] as const;
type OptionField = (typeof OPTION_FIELDS)[number];
const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/x-csv', 'application/vnd.ms-excel', 'text/comma-separated-values']);

interface ImportOptions {
  listId: number | null;
  updateExisting: boolean;
  skipInvalidEmails: boolean;
  /** Ours (default true): false subscribes without the double opt-in mail, for consent recorded elsewhere. */
  sendConfirmation: boolean;
  /** Ours (default false): a file without a `confirmed` column is imported confirmed (the console's choice). */
  markConfirmed: boolean;
  /** Ours: `html_email` of new subscribers whose row has no cell for it (default SUBSCRIBER_HTML_DEFAULT). */
  htmlEmail: boolean;
  /** Ours: which column goes where (the console's choice), instead of the header's names; null: by name. */
  columns: ColumnMapping | null;
}

function readOptions(ctx: AppContext, raw: Partial<Record<OptionField, string>>): ImportOptions {
  const listId = raw.list_id?.trim();
  if (listId !== undefined && listId !== '' && (!/^\d{1,10}$/.test(listId) || Number(listId) < 1 || Number(listId) > 2_147_483_647)) {
    throw ValidationError.field('list_id', 'This value should be a positive integer.');
  }
  const word = (value: string | undefined) => ['1', 'true', 'on', 'yes'].includes((value ?? '').trim().toLowerCase());
  return {
    listId: listId ? Number(listId) : null,
    updateExisting: word(raw.update_existing),
    skipInvalidEmails: raw.skip_invalid_emails === undefined ? true : word(raw.skip_invalid_emails),
    sendConfirmation: raw.send_confirmation === undefined ? true : word(raw.send_confirmation),
    markConfirmed: word(raw.mark_confirmed),
    htmlEmail: raw.html_email === undefined || raw.html_email.trim() === '' ? newSubscriberHtmlEmail(ctx) : word(raw.html_email),
    columns: parseColumnMapping(raw.columns),
  };
}

class Tally implements BatchTally {
  imported = 0;
  updated = 0;
  skipped = 0;
  unconfirmed = 0;
  duplicatesInFile = 0;
  existingSubscribers = 0;
  ignoredColumns: readonly string[] = [];
  private readonly lines: string[] = [];
  private unlisted = 0;
  confirmationsQueued = 0;

  constructor(readonly report: ImportReport) {}

  reject(row: { line: number; fields: readonly string[] }, reason: string): void {
    this.skipped++;
    if (this.lines.length < MAX_ERROR_LINES) this.lines.push(`Line ${row.line}: ${reason}`);
    else this.unlisted++;
    this.report.add(row.line, row.fields, 'rejected', reason);
  }

  existing(row: ImportRow, inFile: boolean, updated: boolean): void {
    if (updated) this.updated++;
    else this.skipped++;
    if (inFile) this.duplicatesInFile++;
    else this.existingSubscribers++;
    const what = inFile ? 'The address (or foreign key) is on an earlier line of this file' : 'Already a subscriber';
    const done = updated ? 'updated with this row' : 'not updated (update_existing is off)';
    this.report.add(row.line, row.fields, inFile ? 'duplicate_in_file' : 'existing_subscriber', `${what}; ${done}.`);
  }

  result(reportId: string | null): ImportResult {
    const errors = this.unlisted > 0 ? [...this.lines, `… and ${this.unlisted} more rejected rows.`] : this.lines;
    return {
      imported: this.imported,
      updated: this.updated,
      skipped: this.skipped,
      errors,
      ignored_columns: [...this.ignoredColumns],
      unconfirmed: this.unconfirmed,
      duplicates_in_file: this.duplicatesInFile,
      existing_subscribers: this.existingSubscribers,
      report: reportId === null ? null : { id: reportId, rows: this.report.rowCount, url: `/api/v2/import-reports/${reportId}` },
    };
  }
}

/**
 * The import of one multipart request (reference §5.5, §8.4). Options come from the query string or from form
 * fields, before or after the file:
 * - a client that sends options first (an option field before the file, or any option in the query string) has
 *   its options and list checked before a byte of the file is read, and an option field after the file is refused
 *   (it would come too late to apply);
 * - a file that comes before any option (the public phpList JS client sends `file`, then `list_id`) is imported
 *   with the options that follow it.
 * Either way the file is first spooled to a temporary file at the speed the body arrives, then imported from
 * there, and the temporary file is removed whatever happens. Streamed straight into the database instead, the
 * body of a large import arrived only as fast as the database took the rows, and REQUEST_TIMEOUT_MS (5 minutes)
 * cut off a million-row import on a slow machine with a 408. The rows stream through the parser into batches of
 * bulk statements, all in one transaction: a file that turns out malformed or too large leaves nothing behind.
 * Confirmation mails are queued batch by batch in the same transaction (mail/mail-queue.ts) and leave after the
 * commit.
 */
export async function importSubscribers(
  ctx: AppContext,
  parts: AsyncIterable<FormPart>,
  query: ImportQuery,
  adminId: number,
  origin: HistoryOrigin,
): Promise<ImportResult> {
  const raw: Partial<Record<OptionField, string>> = {};
  for (const name of OPTION_FIELDS) if (query[name] !== undefined) raw[name] = query[name];
  const optionsFirst = Object.keys(raw).length > 0;
  const reports = reportDir(ctx.config.dataDir);
  await sweepReports(reports);
  const tally = new Tally(new ImportReport(reports, adminId));
  const fileErrors = new WeakSet<object>();
  let spooled: SpooledFile | null = null;
  let sawFile = false;
  let sawOption = false;
  try {
    const iterator = parts[Symbol.asyncIterator]();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const part = next.value;
      if (part.type === 'field') {
        if (isOption(part.fieldname)) {
          raw[part.fieldname] = fieldText(part);
          sawOption = true;
        }
        continue;
      }
      if (part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      if (sawFile) {
        part.file.resume();
        throw ValidationError.field('file', 'Send one file only.');
      }
      sawFile = true;
      part.file.on('error', (err: Error) => fileErrors.add(err));
      const filename = part.filename ?? '';
      if (!CSV_TYPES.has(part.mimetype.toLowerCase()) && !/\.csv$/i.test(filename)) {
        part.file.resume();
        throw ValidationError.field('file', 'File must be a CSV (text/csv, or a name ending in .csv).');
      }
      const fileFirst = !optionsFirst && !sawOption;
      if (!fileFirst) await checkOptions(ctx, readOptions(ctx, raw), adminId);
      spooled = await spool(part.file, join(ctx.config.dataDir, 'tmp'));
      if (fileFirst) continue;
      // Options after the file would come too late to apply; refuse them rather than ignore them.
      for (let late = await iterator.next(); !late.done; late = await iterator.next()) {
        if (late.value.type === 'file') {
          late.value.file.resume();
          throw ValidationError.field('file', 'Send one file only.');
        }
        if (isOption(late.value.fieldname)) {
          throw ValidationError.field(late.value.fieldname, 'Send this field before the file, or in the query string.');
        }
      }
      break;
    }
    if (!sawFile) throw ValidationError.field('file', 'No file uploaded');
    if (spooled) {
      const file = spooled.open();
      try {
        await importStream(ctx, file, readOptions(ctx, raw), adminId, origin, tally);
      } finally {
        file.destroy(); // a refusal part-way leaves it unread and its descriptor open
      }
    }
  } catch (err) {
    await tally.report.discard();
    throw asHttpError(ctx, err, fileErrors);
  } finally {
    await spooled?.remove();
  }
  if (tally.confirmationsQueued > 0) mailQueued(ctx);
  return tally.result(await tally.report.finish());
}

function isOption(name: string): name is OptionField {
  return (OPTION_FIELDS as readonly string[]).includes(name);
}

/** What the options name exists and is the administrator's (the list); refused before the file is read. */
async function checkOptions(ctx: AppContext, options: ImportOptions, adminId: number): Promise<void> {
  if (options.listId !== null) await requireOwnedList(ctx, options.listId, adminId);
}

/** Checks the options again (the list may have gone while the file arrived), then imports the file in one transaction. */
async function importStream(
  ctx: AppContext,
  file: Readable,
  options: ImportOptions,
  adminId: number,
  origin: HistoryOrigin,
  tally: Tally,
): Promise<void> {
  await checkOptions(ctx, options, adminId);
  const login = await loginNameOf(ctx.db, adminId);
  const batchOptions: BatchOptions = { ...options, adminId, login, origin, queueConfirmations: (tx, ids) => queueConfirmationRequests(ctx, tx, ids) };
  await ctx.db.transaction((tx) => importFile(tx, file, options, batchOptions, tally));
}

/** A multipart parser failure as the import answers it: 413 naming the upload limit, else as any form (400). */
export function uploadError(ctx: AppContext, err: unknown): Error {
  if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
    return new PayloadTooLargeError(`The file is larger than the upload limit of ${ctx.config.uploadLimit} bytes.`);
  }
  return asClientError(err);
}

function asHttpError(ctx: AppContext, err: unknown, fileErrors: WeakSet<object>): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return uploadError(ctx, err);
  if (err instanceof CsvFormatError) {
    return ValidationError.field('file', err.line ? `Line ${err.line}: ${err.message}.` : `${err.message}.`);
  }
  // The upload stream failed (the body cut off inside the file: busboy's error, or the stream closed early).
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || (typeof err === 'object' && err !== null && fileErrors.has(err))) {
    return new BadRequestError('Malformed multipart body: it ends inside the file (cut off?).');
  }
  return err;
}

async function importFile(tx: Executor, file: Readable, given: ImportOptions, options: BatchOptions, tally: Tally): Promise<void> {
  const definitions = await loadDefinitionsWithOptions(tx);
  let columns: ImportColumns | null = null;
  let batch: ImportRow[] = [];
  const emails = new Set<string>();
  const foreignKeys = new Set<string>();
  // One batch is written while the next is read: the parser and the database work at the same time.
  let inFlight: Promise<void> = Promise.resolve();
  const submit = async () => {
    await inFlight;
    const rows = batch;
    batch = [];
    emails.clear();
    foreignKeys.clear();
    // Once written, the report's rows before the batch now being read are settled (rows of that batch, and rows
    // the parser rejected after it began, wait for it).
    inFlight = writeBatch(tx, rows, options, tally).then(() => tally.report.flush(batch[0]?.line ?? Infinity));
    inFlight.catch(() => {}); // awaited later; this only marks it handled meanwhile
  };
  try {
    for await (const { fields, line } of readCsv(file)) {
      if (columns === null) {
        if (given.columns) checkMapping(given.columns, fields, definitions);
        columns = mapHeader(fields, definitions, given.columns);
        if (!columns && given.columns) throw ValidationError.field('columns', 'No column is mapped to email: the import needs one.');
        if (!columns) throw ValidationError.field('file', 'The header (line 1) has no email column.');
        tally.ignoredColumns = columns.ignored;
        tally.report.setHeader(fields);
        continue;
      }
      if (fields.length === 1 && fields[0]!.trim() === '') continue; // an empty line
      const outcome = readRow(fields, line, columns, given.skipInvalidEmails);
      if (!outcome.ok) {
        tally.reject({ line, fields }, outcome.reason);
        // A file of rejected rows never fills a batch: its report is written out here instead, after the rows
        // read so far (which decide the order of what is held).
        if (tally.report.full) {
          if (batch.length > 0) await submit();
          await inFlight;
          await tally.report.flush();
        }
        continue;
      }
      const row = outcome.row;
      // The same address (or foreign key) twice in one batch: the earlier row is written first.
      if (emails.has(row.email) || (row.foreignKey !== undefined && foreignKeys.has(row.foreignKey))) await submit();
      batch.push(row);
      emails.add(row.email);
      if (row.foreignKey !== undefined) foreignKeys.add(row.foreignKey);
      if (batch.length >= IMPORT_BATCH_SIZE) await submit();
    }
    if (columns === null) throw ValidationError.field('file', 'The file is empty: the first line must name the columns.');
    if (batch.length > 0) await submit();
  } finally {
    await inFlight.catch(() => {});
  }
  await inFlight;
}

/** The report of an import `adminId` ran, as a stream; 404 when there is none (another's, expired, never was). */
export async function importReport(ctx: AppContext, adminId: number, id: string): Promise<Readable> {
  const dir = reportDir(ctx.config.dataDir);
  await sweepReports(dir);
  const file = await openReport(dir, adminId, id);
  if (!file) throw new NotFoundError('No such import report: it belongs to another administrator, or is older than 24 hours.');
  return file;
}
