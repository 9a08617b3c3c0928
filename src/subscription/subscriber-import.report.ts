import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/*
 * The import's report: a CSV of the rows that did not simply create a subscriber (rejected rows with the reason, rows
 * repeating an address of the file, rows naming an existing subscriber), each as it was in the file plus its line,
 * its outcome and the reason, in the file's order. It is written to disk while the import runs (memory holds one
 * flush's worth, never the file), kept under DATA_DIR/import-reports for REPORT_LIFETIME_MS and served to the
 * administrator who ran the import. Rows are reported out of order (a row is rejected while the parser reads, an
 * existing subscriber found when its batch is written, and the parser reads ahead of the batch in flight), so each
 * flush writes only the rows before the first line still being decided, in line order.
 */

export type ReportOutcome = 'rejected' | 'duplicate_in_file' | 'existing_subscriber';

/** Reports are deleted this long after they were written (swept when an import starts or a report is fetched). */
export const REPORT_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Text held before it is handed to the file; the import waits for the file when more is held. */
const FLUSH_BYTES = 256 * 1024;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const reportDir = (dataDir: string) => join(dataDir, 'import-reports');
const reportPath = (dir: string, adminId: number, id: string) => join(dir, `${adminId}-${id}.csv`);

/** Whether a spreadsheet would read the cell as a formula; such a cell gets a leading `'` (the import takes it off). */
function looksLikeFormula(value: string): boolean {
  return value !== '' && '=+-@\t\r'.includes(value[0]!) && !/^[+-]?\d+(\.\d+)?$/.test(value);
}

function cell(value: string): string {
  const safe = looksLikeFormula(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const record = (cells: readonly string[]) => `${cells.map(cell).join(',')}\r\n`;

export class ImportReport {
  readonly id = randomUUID();
  private rows = 0;
  private width = 0;
  private header: readonly string[] = [];
  /** Rows reported and not yet written, with their lines; `heldBytes` is their text's length. */
  private held: { readonly line: number; readonly text: string }[] = [];
  private heldBytes = 0;
  private file: WriteStream | null = null;
  private failure: Error | null = null;

  constructor(
    private readonly dir: string,
    private readonly adminId: number,
  ) {}

  /** The file's header; the report's own columns follow it. */
  setHeader(header: readonly string[]): void {
    this.header = header;
    this.width = header.length;
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Whether enough is held that the import should `flush()` before it reads on. */
  get full(): boolean {
    return this.heldBytes >= FLUSH_BYTES;
  }

  /**
   * One row: its cells padded to the header's width, then line, outcome and reason; cells beyond the header's width
   * (a row the import refused for them) come last, so the report's own columns stay in place.
   */
  add(line: number, fields: readonly string[], outcome: ReportOutcome, reason: string): void {
    const own = Array.from({ length: this.width }, (_, i) => fields[i] ?? '');
    const text = record([...own, String(line), outcome, reason, ...fields.slice(this.width)]);
    this.held.push({ line, text });
    this.heldBytes += text.length;
    this.rows++;
  }

  /**
   * Hands the rows held from lines before `before` to the file, in line order, waiting while the disk is behind;
   * rows from `before` on stay held (their line's part of the file is still being decided).
   */
  async flush(before = Infinity): Promise<void> {
    const ready: typeof this.held = [];
    const kept: typeof this.held = [];
    for (const row of this.held) (row.line < before ? ready : kept).push(row);
    if (ready.length === 0) return;
    this.held = kept;
    let text = this.file ? '' : record([...this.header, 'line', 'outcome', 'reason']);
    for (const row of ready.sort((a, b) => a.line - b.line)) {
      text += row.text;
      this.heldBytes -= row.text.length;
    }
    if (!this.file) {
      await mkdir(this.dir, { recursive: true });
      this.file = createWriteStream(reportPath(this.dir, this.adminId, this.id), { mode: 0o600 });
      // Kept for the next flush to throw; a write still pending when the import fails is not worth a crash.
      this.file.on('error', (err) => (this.failure = err));
    }
    if (this.failure) throw this.failure;
    const file = this.file;
    if (file.write(text)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        file.off('drain', done);
        file.off('error', done);
        if (err) reject(err);
        else resolve();
      };
      file.on('drain', done);
      file.on('error', done);
    });
  }

  /** Closes the file; the report's id, or null when no row was reported (no file was written). */
  async finish(): Promise<string | null> {
    await this.flush();
    if (!this.file) return null;
    const file = this.file;
    await new Promise<void>((resolve, reject) => file.end((err?: Error | null) => (err || this.failure ? reject(err ?? this.failure) : resolve())));
    return this.id;
  }

  /** Removes what was written (the import failed and wrote nothing). */
  async discard(): Promise<void> {
    this.held = [];
    this.heldBytes = 0;
    if (!this.file) return;
    this.file.destroy();
    await rm(reportPath(this.dir, this.adminId, this.id), { force: true });
  }
}

/** The report `id` of this administrator's import, or null when there is none (never was, another's, or expired). */
export async function openReport(dir: string, adminId: number, id: string): Promise<Readable | null> {
  if (!ID.test(id)) return null;
  const path = reportPath(dir, adminId, id);
  try {
    const info = await stat(path);
    if (Date.now() - info.mtimeMs > REPORT_LIFETIME_MS) return null;
  } catch {
    return null;
  }
  return createReadStream(path);
}

/** Deletes reports older than their lifetime. */
export async function sweepReports(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > REPORT_LIFETIME_MS) await rm(path, { force: true });
  }
}
