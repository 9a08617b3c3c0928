import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';

/*
 * Does a sign-up tell whether an address is subscribed by how long it takes? (issue 22). Starts the built service
 * (`node dist/server.js`, SEND_WORKER=on so the mail drainer runs beside the requests, as in production) against an
 * SMTP server that takes SMTP_DELAY_MS to accept each recipient and each message, then posts PAIRS interleaved pairs
 * of sign-ups on one page: an address never seen, and an address already confirmed and on the list. Prints the
 * median answer time of each kind and their difference (target: within 5 ms).
 *
 *   npx tsx scripts/build.ts && npx tsx bench/signup-timing.ts            # embedded PGlite in a temporary DATA_DIR
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/signup-timing.ts -- --postgres
 */

const PAIRS = Number(process.env.PAIRS ?? 20);
const SMTP_DELAY_MS = Number(process.env.SMTP_DELAY_MS ?? 150);
const WARMUP = 5;
const usePostgres = process.argv.includes('--postgres');
/** Another name lets two runs share one PostgreSQL server. */
const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/.test(process.env.BENCH_DATABASE_NAME ?? '')
  ? process.env.BENCH_DATABASE_NAME!
  : 'mailroom_signup_timing';
/** How long the service may take to start: a loaded machine migrates a new embedded database slowly. */
const START_SECONDS = Number(process.env.BENCH_START_SECONDS ?? 60);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A mail server as slow as a real one far away: SMTP_DELAY_MS for each RCPT TO and for the data. */
async function slowSmtp(): Promise<{ port: number; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      setTimeout(() => callback(), SMTP_DELAY_MS);
    },
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () =>
        setTimeout(() => {
          received++;
          callback();
        }, SMTP_DELAY_MS),
      );
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function main() {
  const smtp = await slowSmtp();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-signup-timing-'));
  let databaseUrl = '';
  if (usePostgres) {
    const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`drop database if exists ${DATABASE_NAME}`);
    await client.query(`create database ${DATABASE_NAME}`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${DATABASE_NAME}`;
    databaseUrl = url.toString();
  }
  const service = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}/?tls=off`,
      SEND_WORKER: 'on',
      LOG_LEVEL: 'warn',
      ADMIN_LOGIN: 'bench',
      ADMIN_PASSWORD: 'bench-password-1234',
      SUBSCRIBE_PAGE_CLIENT_LIMIT: '100000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        /* not yet listening */
      }
      if (i > START_SECONDS * 10) throw new Error(`the service did not start within ${START_SECONDS} s`);
      await sleep(100);
    }
    const call = async (method: string, path: string, body: unknown, key?: string) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(key ? { 'php-auth-pw': key } : {}) },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.status === 204 ? null : ((await res.json()) as Record<string, unknown>);
    };
    const { key } = (await call('POST', '/api/v2/sessions', { login_name: 'bench', password: 'bench-password-1234' })) as { key: string };
    const list = (await call('POST', '/api/v2/lists', { name: 'Timing', public: true }, key)) as { id: number };
    const page = (await call('POST', '/api/v2/subscribe-pages', { title: 'Timing', active: true }, key)) as { id: number };
    await call('PUT', `/api/v2/subscribe-pages/${page.id}/data`, { name: 'lists', value: String(list.id) }, key);
    const confirmed = Array.from({ length: PAIRS + WARMUP }, (_, i) => `confirmed-${i}@example.com`);
    await call('POST', `/api/v2/lists/${list.id}/subscribers`, { emails: confirmed, auto_confirm: true, create_unknown: true }, key);

    const signUp = async (email: string) => {
      const started = performance.now();
      const res = await fetch(`${base}/api/v2/public/subscribe-pages/${page.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, list_id: list.id }),
      });
      await res.arrayBuffer();
      const ms = performance.now() - started;
      if (res.status !== 204) throw new Error(`sign-up ${email}: ${res.status}`);
      return ms;
    };
    const fresh: number[] = [];
    const known: number[] = [];
    const stamp = Date.now();
    for (let i = 0; i < PAIRS + WARMUP; i++) {
      // Alternate which goes first, so neither kind always follows the other's background mail.
      const order = i % 2 === 0 ? (['new', 'confirmed'] as const) : (['confirmed', 'new'] as const);
      for (const kind of order) {
        const ms = kind === 'new' ? await signUp(`new-${stamp}-${i}@example.com`) : await signUp(confirmed[i]!);
        if (i >= WARMUP) (kind === 'new' ? fresh : known).push(ms);
      }
    }
    // Every new address's confirmation reaches the slow server after the answers.
    for (let i = 0; i < 200 && smtp.received() < PAIRS + WARMUP; i++) await sleep(100);
    const result = {
      database: usePostgres ? 'postgres' : 'pglite',
      pairs: PAIRS,
      smtp_delay_ms: SMTP_DELAY_MS,
      median_new_ms: Number(median(fresh).toFixed(2)),
      median_confirmed_ms: Number(median(known).toFixed(2)),
      difference_ms: Number((median(fresh) - median(known)).toFixed(2)),
      mails_received: smtp.received(),
      loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    };
    console.log(JSON.stringify(result));
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await smtp.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
