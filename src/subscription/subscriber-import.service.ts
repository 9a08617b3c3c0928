import type { Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { findAdministrator } from '../identity/administrator.repository.js';
import { PayloadTooLargeError, ValidationError } from '../shared/errors.js';
import { loadDefinitionsWithOptions } from './attribute.repository.js';
import { requireOwnedList } from './list.service.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { writeBatch, type BatchOptions, type BatchTally } from './subscriber-import.batch.js';
import { mapHeader, readRow, type ImportColumns, type ImportRow } from './subscriber-import.columns.js';
import { CsvFormatError, readCsv } from './subscriber-import.csv.js';
import { IdList, sendConfirmationsInBackground } from './subscriber-import.mail.js';
import type { ImportQuery, ImportResult } from './subscriber-import.schemas.js';

/**
 * Rows written per round of bulk statements. Rows of a batch live until it is written, long enough to be promoted
 * out of V8's young generation, so larger batches grow the old generation faster: on 1M rows 2,000 peaked at 306 MB
 * (16,299 rows/s), 1,000 at 294 MB (17,430 rows/s); 5,000 was no faster.
 */
export const IMPORT_BATCH_SIZE = 1000;
/** Error lines kept in the answer; beyond this they are counted in one closing line (memory stays bounded). */
export const MAX_ERROR_LINES = 10_000;

const OPTION_FIELDS = ['list_id', 'update_existing', 'skip_invalid_emails', 'send_confirmation'] as const;
type OptionField = (typeof OPTION_FIELDS)[number];
const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/x-csv', 'application/vnd.ms-excel', 'text/comma-separated-values']);

interface ImportOptions {
  listId: number | null;
  updateExisting: boolean;
  skipInvalidEmails: boolean;
  /** Ours (default true): false subscribes without the double opt-in mail, for consent recorded elsewhere. */
  sendConfirmation: boolean;
}

function readOptions(raw: Partial<Record<OptionField, string>>): ImportOptions {
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
  };
}

class Tally implements BatchTally {
  imported = 0;
  updated = 0;
  skipped = 0;
  private readonly lines: string[] = [];
  private unlisted = 0;
  readonly mail = new IdList();

  reject(error: string | null): void {
    this.skipped++;
    if (error === null) return;
    if (this.lines.length < MAX_ERROR_LINES) this.lines.push(error);
    else this.unlisted++;
  }

  result(): ImportResult {
    const errors = this.unlisted > 0 ? [...this.lines, `… and ${this.unlisted} more rejected rows.`] : this.lines;
    return { imported: this.imported, updated: this.updated, skipped: this.skipped, errors };
  }
}

/**
 * The import of one multipart request (reference §5.5, §8.4). Options come from the query string or from form
 * fields sent before the file; the list is checked before a byte of the file is read. The file streams through
 * the parser into batches of bulk statements, all in one transaction: a file that turns out malformed or too
 * large leaves nothing behind. Confirmation mails go out after the commit, in the background.
 */
export async function importSubscribers(
  ctx: AppContext,
  parts: AsyncIterableIterator<Multipart>,
  query: ImportQuery,
  adminId: number,
  origin: HistoryOrigin,
): Promise<ImportResult> {
  const raw: Partial<Record<OptionField, string>> = { ...query };
  const tally = new Tally();
  let sawFile = false;
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        if ((OPTION_FIELDS as readonly string[]).includes(part.fieldname)) raw[part.fieldname as OptionField] = String(part.value);
        continue;
      }
      if (part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      sawFile = true;
      const filename = part.filename ?? '';
      if (!CSV_TYPES.has(part.mimetype.toLowerCase()) && !/\.csv$/i.test(filename)) {
        throw ValidationError.field('file', 'File must be a CSV (text/csv, or a name ending in .csv).');
      }
      const options = readOptions(raw);
      if (options.listId !== null) await requireOwnedList(ctx, options.listId, adminId);
      const login = (await findAdministrator(ctx.db, adminId))?.loginName ?? `#${adminId}`;
      const batchOptions: BatchOptions = { ...options, adminId, login, origin };
      await ctx.db.transaction(async (tx) => {
        await importFile(tx, part.file, options.skipInvalidEmails, batchOptions, tally);
        // Options after the file would come too late to apply; refuse them rather than ignore them.
        for await (const late of parts) {
          if (late.type === 'file') throw ValidationError.field('file', 'Send one file only.');
          if ((OPTION_FIELDS as readonly string[]).includes(late.fieldname)) {
            throw ValidationError.field(late.fieldname, 'Send this field before the file, or in the query string.');
          }
        }
      });
      break;
    }
  } catch (err) {
    throw asHttpError(ctx, err);
  }
  if (!sawFile) throw ValidationError.field('file', 'No file uploaded');
  sendConfirmationsInBackground(ctx, tally.mail);
  return tally.result();
}

function asHttpError(ctx: AppContext, err: unknown): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new PayloadTooLargeError(`The file is larger than the upload limit of ${ctx.config.uploadLimit} bytes.`);
  }
  if (err instanceof CsvFormatError) {
    return ValidationError.field('file', err.line ? `Line ${err.line}: ${err.message}.` : `${err.message}.`);
  }
  return err;
}

async function importFile(
  tx: Executor,
  file: Readable,
  skipInvalidEmails: boolean,
  options: BatchOptions,
  tally: Tally,
): Promise<void> {
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
    inFlight = writeBatch(tx, rows, options, tally);
    inFlight.catch(() => {}); // awaited later; this only marks it handled meanwhile
  };
  try {
    for await (const { fields, line } of readCsv(file)) {
      if (columns === null) {
        columns = mapHeader(fields, definitions);
        if (!columns) throw ValidationError.field('file', 'The header (line 1) has no email column.');
        continue;
      }
      if (fields.length === 1 && fields[0]!.trim() === '') continue; // an empty line
      const outcome = readRow(fields, line, columns, skipInvalidEmails);
      if (!outcome.ok) {
        tally.reject(outcome.error);
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
