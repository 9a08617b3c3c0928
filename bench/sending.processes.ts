import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/*
 * The processes a sending job starts beside the service (campaign workers), with the guarantees the bench needs:
 * every one is stopped when the job ends, also when it fails or the driver exits, and every wait is bounded.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const live = new Set<ChildProcess>();
// Whatever way the driver ends, no worker outlives it (the sink ends on its own when its IPC channel closes).
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface WorkerProcess {
  readonly pid: number;
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  isRunning(): boolean;
  /** SIGTERM (the worker finishes its mails in flight and hands the rest back), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
  /** kill -9: no chance to record or hand anything back. */
  kill9(): Promise<void>;
}

/** Node options for the workers only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (space-separated). */
const workerNodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

/**
 * Where the workers' `dist/worker.js` is: this checkout, or another one built beside it (`BENCH_WORKER_DIR`), so that
 * an A/B against an earlier commit runs its worker under the same driver, sink and database in the same session.
 */
const workerDir = process.env.BENCH_WORKER_DIR || root;

/** `node dist/worker.js` as `npm run worker` runs it, with this environment; its output goes to stderr. */
export function startWorkerProcess(env: NodeJS.ProcessEnv): WorkerProcess {
  const args = ['--enable-source-maps', ...workerNodeArgs, 'dist/worker.js'];
  const child = spawn(process.execPath, args, { cwd: workerDir, env, stdio: ['ignore', 2, 2] });
  if (child.pid === undefined) throw new Error('the worker process did not start');
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  return {
    pid: child.pid,
    exited,
    isRunning,
    async stop(graceMs = 30_000) {
      if (!isRunning()) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill9() {
      if (!isRunning()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A field of /proc/<pid>/status in MB (VmRSS now, VmHWM the peak); null off Linux or once the process is gone. */
export function memoryMegabytes(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/** utime + stime of a process in seconds (/proc/<pid>/stat, at the usual 100 ticks a second); null when unreadable. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Math.round(((Number(fields[11]) + Number(fields[12])) / 100) * 10) / 10;
  } catch {
    return null;
  }
}

/** Rejects after `ms` with `message`; the timer does not keep the process alive. */
export function deadline(ms: number, message: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(message)), ms).unref());
}

/** A promise whose rejection nobody may be waiting for any more (a milestone the job stopped racing). */
export function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
