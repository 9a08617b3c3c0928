import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The embedded database's directory (DATA_DIR): made writable or explained in one line, and held by one process.
 * PGlite has no lock of its own: two processes on one directory both start and overwrite each other's writes.
 */

/** A start-up failure explained in one line (no stack trace); the process exits with `exitCode`. */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}

/** sysexits.h: configuration error (DATA_DIR not writable or full). */
const EX_CONFIG = 78;
/** sysexits.h: temporary failure (another process holds DATA_DIR). */
const EX_TEMPFAIL = 75;

const LOCK_FILE = 'mailroom.lock';

/** The one-line explanation of a file-system error on DATA_DIR (node's `code`, or Emscripten's errno in PGlite). */
export function dataDirError(dataDir: string, err: unknown): StartupError | undefined {
  const { code, errno } = err as { code?: unknown; errno?: unknown };
  // Emscripten's numbering (PGlite's file system): 51 ENOSPC, 69 EROFS, 2 EACCES, 63 EPERM, 54 ENOTDIR.
  const emscripten = typeof errno === 'number' && typeof code !== 'string';
  if (code === 'ENOSPC' || code === 'EDQUOT' || (emscripten && errno === 51)) {
    return new StartupError(`DATA_DIR ${dataDir} is full (no space left on the device): free some space or use another DATA_DIR.`, EX_CONFIG);
  }
  const notWritable = ['EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'ENOENT', 'EISDIR'];
  if ((typeof code === 'string' && notWritable.includes(code)) || (emscripten && [2, 54, 63, 69].includes(errno))) {
    const reason = typeof code === 'string' ? code : `errno ${String(errno)}`;
    return new StartupError(
      `DATA_DIR ${dataDir} is not writable (${reason}): point DATA_DIR at a writable directory, or set DATABASE_URL.`,
      EX_CONFIG,
    );
  }
  return undefined;
}

interface Holder {
  readonly pid: number;
  /** The holder's start time in clock ticks since boot (Linux), so a recycled pid is not taken for the holder. */
  readonly started: string | null;
}

/** Field 22 of /proc/<pid>/stat; null where there is no /proc or no such process. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function readHolder(path: string): Holder | null {
  try {
    const [pid, started] = readFileSync(path, 'utf8').trim().split(/\s+/);
    const value = Number(pid);
    return Number.isSafeInteger(value) && value > 0 ? { pid: value, started: started || null } : null;
  } catch {
    return null;
  }
}

function isRunning(holder: Holder): boolean {
  // Our own pid in the file is a previous life of this container's process (pids restart at 1), killed with -9.
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EPERM') return false;
  }
  const now = startTimeOf(holder.pid);
  return holder.started === null || now === null || now === holder.started;
}

/**
 * Creates DATA_DIR if needed and takes its lock file, or throws a StartupError: not writable, full, or held by a
 * running process. A lock left by a process that died (kill -9, power loss) is taken over. Answers the release.
 */
export function lockDataDir(dataDir: string): () => void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw dataDirError(dataDir, err) ?? err;
  }
  const lock = join(dataDir, LOCK_FILE);
  const mine = `${lock}.${process.pid}`;
  const content = `${process.pid} ${startTimeOf(process.pid) ?? ''}\n`;
  try {
    // Written whole under a name of our own, then linked into place: link fails if the lock exists, so no other
    // process ever reads a half-written lock. Writing it also proves DATA_DIR writable (and not full).
    writeFileSync(mine, content);
  } catch (err) {
    throw dataDirError(dataDir, err) ?? err;
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(mine, lock);
        const release = () => {
          if (readHolder(lock)?.pid === process.pid) rmSync(lock, { force: true });
        };
        // A process that exits without closing the database (a failed start) leaves no lock behind.
        process.once('exit', release);
        return () => {
          process.off('exit', release);
          release();
        };
      } catch (err) {
        if ((err as { code?: string }).code !== 'EEXIST') throw dataDirError(dataDir, err) ?? err;
      }
      const holder = readHolder(lock);
      if (holder && isRunning(holder)) {
        throw new StartupError(
          `DATA_DIR ${dataDir} is in use by another Mailroom process (pid ${holder.pid}): the embedded database can ` +
            'be opened by one process only. Stop that process first, or use PostgreSQL (DATABASE_URL) to run several.',
          EX_TEMPFAIL,
        );
      }
      takeOverStaleLock(lock, holder);
    }
    throw new StartupError(`DATA_DIR ${dataDir}: could not take the lock file ${LOCK_FILE}; try again.`, EX_TEMPFAIL);
  } finally {
    rmSync(mine, { force: true });
  }
}

/**
 * Removes a dead process's lock. Renamed aside first, then checked: when two processes take over the same stale lock
 * at once, the later one may have moved the earlier one's fresh lock, and puts it back.
 */
function takeOverStaleLock(lock: string, stale: Holder | null): void {
  const aside = `${lock}.stale.${process.pid}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // gone already: the next attempt links
  }
  const moved = readHolder(aside);
  if (moved && stale && moved.pid !== stale.pid) {
    try {
      linkSync(aside, lock);
    } catch {
      // a third process linked meanwhile: its lock stands, and the next attempt sees it
    }
  }
  rmSync(aside, { force: true });
}
