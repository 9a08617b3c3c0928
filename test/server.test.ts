import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestDatabase, type TestDatabase } from './db.js';

/*
 * The real process: `node --import tsx src/server.ts` (the same as `npx tsx src/server.ts`, without the wrapper
 * processes between the test and the server, so signals reach the server itself).
 */

interface Running {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout: string;
  stderr: string;
}

function start(env: Record<string, string>): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

async function waitForOutput(running: Running, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(running.stdout);
    if (match) return match;
    if (running.child.exitCode !== null) throw new Error(`server exited: ${running.stdout}\n${running.stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${running.stdout}\n${running.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(running: Running): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  running.child.kill('SIGTERM');
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('did not exit within 20 s of SIGTERM')), 20_000).unref(),
  );
  const { code } = await Promise.race([running.exited, timeout]);
  return { code, ms: Date.now() - started };
}

describe('src/server.ts', () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  const children: Running[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-server-'));
    // PostgreSQL runs use a clone of the golden database (migrated, no administrators); PGlite a fresh DATA_DIR.
    if (process.env.DATABASE_URL) database = await openTestDatabase();
    env = {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: database?.url ?? '',
      LOG_LEVEL: 'warn',
      SMTP_URL: '',
      SEND_WORKER: 'off',
      ADMIN_LOGIN: '',
      ADMIN_PASSWORD: '',
      ADMIN_EMAIL: '',
    };
  });

  after(async () => {
    for (const running of children) if (running.child.exitCode === null) running.child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('first start prints the generated password, serves, and exits 0 on SIGTERM', { timeout: 120_000 }, async () => {
    const running = start(env);
    children.push(running);
    const [, base] = await waitForOutput(running, /listening on (http:\/\/127\.0\.0\.1:\d+) /);
    assert.doesNotMatch(base!, /:0$/, 'prints the bound port');
    const [, login, password] = await waitForOutput(running, /created the super user "([^"]+)" with password: (\S+)/);
    assert.equal(login, 'admin');

    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const session = await fetch(`${base}/api/v2/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login_name: login, password }),
    });
    assert.equal(session.status, 201);

    const { code, ms } = await stop(running);
    assert.equal(code, 0, running.stderr);
    assert.ok(ms < 20_000);
    assert.doesNotMatch(running.stderr, /error/i);
  });

  test('a second start keeps the administrator and prints no password', { timeout: 120_000 }, async () => {
    const running = start(env);
    children.push(running);
    const [, base] = await waitForOutput(running, /listening on (http:\/\/127\.0\.0\.1:\d+) .*\n.*\n/);
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
    assert.doesNotMatch(running.stdout, /password:/);
    assert.equal((await stop(running)).code, 0, running.stderr);
  });

  test('a bad environment value exits non-zero naming the variable', { timeout: 60_000 }, async () => {
    const running = start({ ...env, PORT: 'abc' });
    children.push(running);
    const { code } = await running.exited;
    assert.notEqual(code, 0);
    assert.match(running.stderr, /PORT/);
    assert.doesNotMatch(running.stdout, /listening on/);
  });
});
