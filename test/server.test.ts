import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestDatabase, type TestDatabase } from './db.js';
import { exitWithin, listening, spawnProcess, startEntry, stop, waitForStderr, type Running } from './process.js';

/** The real process (see test/process.ts). */
const start = (env: Record<string, string>) => startEntry('server', env);

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
    for (const running of children) {
      if (running.child.exitCode === null) running.child.kill('SIGKILL');
      // A grandchild left running (npm's node, had npm not handed it the signal) must not hold the test open.
      running.child.stdout?.destroy();
      running.child.stderr?.destroy();
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('first start prints the generated password, serves, and exits 0 on SIGTERM', { timeout: 120_000 }, async () => {
    const running = start({ ...env, LOG_LEVEL: 'info' });
    children.push(running);
    const base = await listening(running);
    assert.doesNotMatch(base, /:0$/, 'prints the bound port');
    const [, login, password] = await waitForStderr(running, /created the super user "([^"]+)" with password: (\S+)/);
    assert.equal(login, 'admin');
    // Issue 25: the banner names the console and how to sign in, not an API call.
    await waitForStderr(running, /Open http:\/\/127\.0\.0\.1:\d+\/admin\/ and sign in as admin with that password; change it under "Your account"\./);
    assert.doesNotMatch(running.stderr, /POST \/api\/v2\/sessions/);

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
    // stdout is the JSON log alone: the banner and the password went to the terminal (stderr), not into it.
    const lines = running.stdout.split('\n').filter(Boolean);
    assert.ok(lines.length > 0, 'the info log has lines');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.ok(!running.stdout.includes(password!), 'the password is not in the log');
  });

  test('a second start keeps the administrator and prints no password', { timeout: 120_000 }, async () => {
    const running = start(env);
    children.push(running);
    const [, base] = await waitForStderr(running, /listening on (http:\/\/127\.0\.0\.1:\d+) .*\n.*\n/);
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
    assert.doesNotMatch(running.stderr + running.stdout, /password:/);
    await waitForStderr(
      running,
      /Admin console: http:\/\/127\.0\.0\.1:\d+\/admin\/ .*\nForgot the password\?.*ADMIN_LOGIN and ADMIN_PASSWORD and restart/,
    );
    assert.equal((await stop(running)).code, 0, running.stderr);
  });

  test('npm start: SIGTERM to the npm process stops the service gracefully', { timeout: 180_000 }, async () => {
    // As Docker, systemd or a terminal's Ctrl-C stop it: the signal goes to npm, which must hand it to node.
    const running = spawnProcess('npm', ['start'], { ...env, LOG_LEVEL: 'info' });
    children.push(running);
    const base = await listening(running);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);

    running.child.kill('SIGTERM');
    const { code } = await exitWithin(running, 20_000);
    assert.equal(code, 0, running.stderr);
    assert.match(running.stdout, /"msg":"shutting down: finishing in-flight requests"/, 'node received the signal');
    await assert.rejects(fetch(`${base}/healthz`), 'nothing serves on the port any more');
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
