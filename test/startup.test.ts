import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from './smtp-sink.js';
import { exitWithin, isAlive, listening, startEntry, stop, type Running } from './process.js';

/*
 * Start-up as the operator sees it: a second process on one embedded database, DATA_DIR that cannot be written, a
 * database that cannot be reached. Each failure is one line on stderr (no stack trace) and a non-zero exit.
 */

const pglite = !process.env.DATABASE_URL;
const base = {
  PORT: '0',
  HOST: '127.0.0.1',
  DATABASE_URL: '',
  LOG_LEVEL: 'warn',
  SMTP_URL: '',
  SEND_WORKER: 'off',
  ADMIN_LOGIN: '',
  ADMIN_PASSWORD: '',
  ADMIN_EMAIL: '',
};

/** The process's whole stderr is this one line (no stack trace, no second message). */
function assertOneLine(running: Running, pattern: RegExp): void {
  const lines = running.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, running.stderr);
  assert.match(lines[0]!, pattern);
}

/** A small file system of its own (tmpfs), where the host allows mounting (root with CAP_SYS_ADMIN); else null. */
function mountTmpfs(dir: string, options: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('start-up', () => {
  let tmp: string;
  const children: Running[] = [];
  const mounts: string[] = [];
  const start = (entry: 'server' | 'worker', env: Record<string, string>) => {
    const running = startEntry(entry, { ...base, ...env });
    children.push(running);
    return running;
  };

  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'mailroom-startup-'));
  });

  after(async () => {
    for (const running of children) if (running.child.exitCode === null) running.child.kill('SIGKILL');
    await Promise.all(children.map((running) => running.exited));
    // Lazily: a file still open cannot keep the mount (and the test's temp directory) behind.
    for (const dir of mounts) execFileSync('umount', ['-l', dir]);
    rmSync(tmp, { recursive: true, force: true });
  });

  test('a second process on the same DATA_DIR refuses to start; after kill -9 a restart works', { skip: !pglite, timeout: 180_000 }, async () => {
    const dataDir = join(tmp, 'shared');
    const first = start('server', { DATA_DIR: dataDir });
    const url = await listening(first);

    const second = start('server', { DATA_DIR: dataDir });
    assert.equal((await exitWithin(second, 60_000)).code, 75);
    assertOneLine(
      second,
      new RegExp(`^mailroom: DATA_DIR ${dataDir} is in use by another Mailroom process \\(pid ${first.child.pid}\\): .*DATABASE_URL`),
    );
    assert.equal((await fetch(`${url}/readyz`)).status, 200, 'the first one still serves');

    // The lock the first one leaves behind when killed does not block the next start.
    first.child.kill('SIGKILL');
    await exitWithin(first, 10_000);
    const third = start('server', { DATA_DIR: dataDir });
    await listening(third);
    assert.equal((await stop(third)).code, 0, third.stderr);
  });

  test('npm run worker without DATABASE_URL explains that extra workers need PostgreSQL', { timeout: 60_000 }, async () => {
    const worker = start('worker', { DATA_DIR: join(tmp, 'worker') });
    assert.equal((await exitWithin(worker, 50_000)).code, 78);
    assertOneLine(worker, /^mailroom worker: extra workers need PostgreSQL \(set DATABASE_URL\)\. /);
  });

  test('DATA_DIR under a regular file: one line naming DATA_DIR, exit 78', { skip: !pglite, timeout: 60_000 }, async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'not a directory');
    const dataDir = join(file, 'data');
    const running = start('server', { DATA_DIR: dataDir });
    assert.equal((await exitWithin(running, 50_000)).code, 78);
    assertOneLine(running, new RegExp(`^mailroom: DATA_DIR ${dataDir} is not writable \\(ENOTDIR\\): `));
  });

  test('DATA_DIR read-only with a database in it: one line, exit 78', { skip: !pglite, timeout: 120_000 }, async (t) => {
    const dataDir = join(tmp, 'readonly');
    mkdirSync(dataDir);
    if (!mountTmpfs(dataDir, 'size=256m')) return t.skip('mounting a tmpfs is not permitted here');
    mounts.push(dataDir);
    const first = start('server', { DATA_DIR: dataDir });
    await listening(first);
    assert.equal((await stop(first)).code, 0, first.stderr);
    execFileSync('mount', ['-o', 'remount,ro', dataDir]);

    const running = start('server', { DATA_DIR: dataDir });
    assert.equal((await exitWithin(running, 50_000)).code, 78);
    assertOneLine(running, new RegExp(`^mailroom: DATA_DIR ${dataDir} is not writable \\(EROFS\\): `));
  });

  test('DATA_DIR on a full disk: one line, exit 78', { skip: !pglite, timeout: 120_000 }, async (t) => {
    const dataDir = join(tmp, 'full');
    mkdirSync(dataDir);
    // Room for the lock file, not for the database's first files.
    if (!mountTmpfs(dataDir, 'size=2m')) return t.skip('mounting a tmpfs is not permitted here');
    mounts.push(dataDir);
    const running = start('server', { DATA_DIR: dataDir });
    assert.equal((await exitWithin(running, 100_000)).code, 78);
    assertOneLine(running, new RegExp(`^mailroom: DATA_DIR ${dataDir} is full \\(no space left on the device\\)`));
  });

  test('an unreachable PostgreSQL: one line with host, port, database and the reason, no password', { timeout: 60_000 }, async () => {
    const port = await closedPort();
    const running = start('server', { DATA_DIR: join(tmp, 'pg'), DATABASE_URL: `postgres://mailroom:s3cret@127.0.0.1:${port}/mailroom` });
    assert.equal((await exitWithin(running, 50_000)).code, 69);
    assertOneLine(
      running,
      new RegExp(`^mailroom: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${port}/mailroom: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`),
    );
    assert.ok(!running.stderr.includes('s3cret'));
    assert.ok(!isAlive(running.child.pid!));
  });
});
