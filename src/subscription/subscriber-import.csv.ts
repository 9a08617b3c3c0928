import type { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';

/*
 * Reading the uploaded CSV as a stream of records, each with the line it starts on (the header is line 1).
 * Only the header line is looked at before parsing starts (to pick the delimiter); the rest flows through
 * csv-parse chunk by chunk, so memory does not grow with the file.
 */

/** Longest header line we look for a line break in, and the largest record csv-parse may build. */
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_RECORD_BYTES = 1024 * 1024;

export class CsvFormatError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message);
  }
}

export interface CsvRecord {
  readonly fields: string[];
  /** The line the record starts on (a quoted field may span several lines). */
  readonly line: number;
}

/** `,` or `;`, whichever occurs more often outside quotes in the header line (`,` on a tie). */
export function detectDelimiter(headerLine: string): ',' | ';' {
  let inQuotes = false;
  let commas = 0;
  let semicolons = 0;
  for (const char of headerLine) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && char === ',') commas++;
    else if (!inQuotes && char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** Line breaks inside a field (only quoted fields have them); CRLF counts once. */
function lineBreaks(fields: string[]): number {
  let n = 0;
  for (const field of fields) {
    if (field.indexOf('\n') < 0 && field.indexOf('\r') < 0) continue;
    n += field.match(/\r\n|\r|\n/g)?.length ?? 0;
  }
  return n;
}

/**
 * Parses the file: UTF-8 with or without BOM, CRLF or LF, quoted fields, `,` or `;` detected from the header.
 * Yields every record, the header first; an empty line yields `['']`. A malformed file throws CsvFormatError
 * naming its line.
 */
export async function* readCsv(file: Readable): AsyncGenerator<CsvRecord> {
  const source = file[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let headBytes = 0;
  let sourceDone = false;
  // Enough of the file to hold the whole header line, for the delimiter.
  while (true) {
    const next = await source.next();
    if (next.done) {
      sourceDone = true;
      break;
    }
    head.push(next.value);
    headBytes += next.value.length;
    if (next.value.includes(10) || next.value.includes(13) || headBytes > MAX_HEADER_BYTES) break;
  }
  const headText = Buffer.concat(head).toString('utf8');
  const delimiter = detectDelimiter(headText.split(/\r\n|\r|\n/, 1)[0] ?? '');

  // csv-parse reads ahead of this generator: when it failed outright, the records it had parsed but not yet handed
  // over were dropped with the stream, and the line counted here was hundreds of lines short of the bad one (1199 for
  // 1998). So a malformed record is only noted where csv-parse finds it, with how many records came before it, and
  // parsing goes on; the error is raised when this generator reaches that record, whose line it then knows. (csv-parse's
  // own `lines` cannot be used instead: it counts a CRLF inside a quoted field as two lines.)
  const malformed: { error: CsvError; before: number }[] = [];
  const parser = parse({
    bom: true,
    delimiter,
    relax_column_count: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_BYTES,
    skip_records_with_error: true,
    on_skip: (error) => {
      if (error && malformed.length === 0) malformed.push({ error, before: recordsBefore(error) });
      return undefined;
    },
  });
  const feed = (async () => {
    const write = (chunk: Buffer) =>
      new Promise<void>((resolve, reject) => {
        if (parser.write(chunk)) resolve();
        else {
          const onDrain = () => {
            parser.off('error', onError);
            resolve();
          };
          const onError = (err: Error) => {
            parser.off('drain', onDrain);
            reject(err);
          };
          parser.once('drain', onDrain);
          parser.once('error', onError);
        }
      });
    for (const chunk of head) await write(chunk);
    while (!sourceDone) {
      const next = await source.next();
      if (next.done) break;
      await write(next.value);
    }
    parser.end();
  })();
  // A failing upload stream (over the size limit, client gone) must stop the parser too.
  feed.catch((err: unknown) => parser.destroy(err as Error));

  let line = 1;
  let records = 0;
  try {
    for await (const fields of parser as AsyncIterable<string[]>) {
      if (malformed[0] && records >= malformed[0].before) break;
      yield { fields, line };
      records++;
      line += 1 + lineBreaks(fields);
    }
    // The bad record starts where the last good one before it ended.
    if (malformed[0]) throw new CsvFormatError(csvMessage(malformed[0].error), line);
    await feed;
  } catch (err) {
    if (err instanceof CsvError) throw new CsvFormatError(csvMessage(err), line);
    throw err;
  } finally {
    if (!parser.destroyed) parser.destroy();
  }
}

/** Records csv-parse handed over before the one it reports (its error carries its `records` count). */
function recordsBefore(error: CsvError): number {
  return typeof error.records === 'number' ? error.records : 0;
}

function csvMessage(err: CsvError): string {
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is not closed before the end of the file';
    case 'CSV_MAX_RECORD_SIZE':
      return 'a record is larger than 1 MiB (is a quote left open?)';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'a quoted field is followed by other characters (write a quote inside a quoted field as "")';
    default:
      return err.message;
  }
}
