import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The service as a process, for the tests of start-up, signals and what goes to stdout/stderr: node itself runs the
 * entry (no `npx`/`npm` wrapper processes between the test and the service, so signals reach the service itself), or
 * any other command (`npm start`).
 */

export interface Running {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout: string;
  stderr: string;
}

/** Spawns `command args` in the checkout with `env` on top of this process's environment. */
export function spawnProcess(command: string, args: readonly string[], env: Record<string, string>): Running {
  const child = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const running: Running = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout!.on('data', (chunk: Buffer) => (running.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (running.stderr += chunk.toString()));
  return running;
}

/**
 * How to run `src/<entry>`: from the compiled copy beside this file under `npm test` (test/prepare.ts compiles src/
 * and test/ together); from a single test file run through tsx, as `npm start` does (the built `dist/<entry>.js`) when
 * the build is newer than every source, else through tsx. For the timed tests (issue 17's restart within 15 s): on a
 * busy 2-core machine the service's start through tsx alone took 11.9 s of them.
 */
export function entryArgs(entry: 'server' | 'worker'): string[] {
  if (!runsFromSources) return siblingArgs(import.meta.url, `../src/${entry}`);
  const built = join('dist', `${entry}.js`);
  if (existsSync(built) && newestMtime('src') < statSync(built).mtimeMs) return ['--enable-source-maps', built];
  return siblingArgs(import.meta.url, `../src/${entry}`);
}

const runsFromSources = import.meta.url.endsWith('.ts');

/** Node's arguments to run the module at `path` (no extension) relative to `base`, the caller's import.meta.url. */
export function siblingArgs(base: string, path: string): string[] {
  return base.endsWith('.ts')
    ? ['--import', 'tsx', fileURLToPath(new URL(`${path}.ts`, base))]
    : ['--enable-source-maps', fileURLToPath(new URL(`${path}.js`, base))];
}

/** The latest modification time of a file, or of any file under a directory (is a build older than its sources?). */
export function newestMtime(path: string): number {
  return statSync(path).isDirectory() ? Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name)))) : statSync(path).mtimeMs;
}

/** `src/server.ts` (or `src/worker.ts`) as a process of its own (see entryArgs). */
export function startEntry(entry: 'server' | 'worker', env: Record<string, string>): Running {
  return spawnProcess(process.execPath, entryArgs(entry), env);
}

/** The start banner and the generated password are written to stderr (stdout carries the JSON log). */
export async function waitForStderr(running: Running, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(running.stderr);
    if (match) return match;
    if (running.child.exitCode !== null) throw new Error(`exited with ${running.child.exitCode}: ${running.stdout}\n${running.stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${running.stdout}\n${running.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The base URL of a started service, from its banner. */
export async function listening(running: Running): Promise<string> {
  const [, base] = await waitForStderr(running, /listening on (http:\/\/127\.0\.0\.1:\d+) /);
  return base!;
}

/** Sends SIGTERM and waits up to 20 s for the exit. */
export async function stop(running: Running): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  running.child.kill('SIGTERM');
  return { code: (await exitWithin(running, 20_000)).code, ms: Date.now() - started };
}

export async function exitWithin(running: Running, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not exit within ${ms / 1000} s: ${running.stdout}\n${running.stderr}`)), ms);
  });
  try {
    return await Promise.race([running.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a pid is a running process. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
