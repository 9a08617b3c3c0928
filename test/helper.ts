import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { mailQueue } from '../src/db/schema/index.js';
import { startMailQueue } from '../src/mail/index.js';
import { loadConfig, type Config } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import type { Database, Db } from '../src/db/client.js';
import { createAdmin, createSessionKey, type AdminOptions } from './factories.js';
import { openTestDatabase } from './db.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly ctx: AppContext;
  readonly db: Db;
  /** The database's lifecycle (what buildApp was given), for tests that build a second app on it. */
  readonly database: Database;
  readonly config: Config;
  /** The SMTP sink every mail of this app goes to. */
  readonly smtp: SmtpSink;
  /** Connection string of this file's database (PostgreSQL only; '' on PGlite). */
  readonly databaseUrl: string;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** An administrator (super user unless told otherwise) and a live session key for them. */
  adminWithSession(options?: AdminOptions): Promise<{
    admin: Awaited<ReturnType<typeof createAdmin>>;
    key: string;
    sessionId: number;
    headers: Record<string, string>;
  }>;
  close(): Promise<void>;
}

/**
 * The service on this test file's own database (a clone of the golden one), with mail going over real SMTP to
 * a sink on loopback. Call once per file; close in `after`.
 */
export async function startTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const testDb = await openTestDatabase();
  const smtp = await startSmtpSink();
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  // Load shedding off (PGLITE_MAX_WAIT_MS 0): these tests assert answers, and on a loaded machine a statement of the
  // embedded database can wait past the 2 s default, turning the answer under test into a 503. test/overload.test.ts
  // starts its own service to test the shedding.
  const config = loadConfig(
    { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', DATA_DIR: dataDir, SMTP_URL: smtp.url, SEND_WORKER: 'off', PGLITE_MAX_WAIT_MS: '0' },
    overrides,
  );
  const app = await buildApp({ config, database: testDb.database, migrate: false });
  await app.ready();
  // The process's sender of system mail (confirmations, password resets …), as in a sending process; buildApp's
  // close stops it.
  startMailQueue(app.ctx);
  return {
    app,
    ctx: app.ctx,
    db: app.ctx.db,
    database: testDb.database,
    config,
    smtp,
    databaseUrl: testDb.url,
    inject: (options) => app.inject(options),
    async adminWithSession(options = {}) {
      const admin = await createAdmin(app.ctx.db, options);
      const session = await createSessionKey(app.ctx.db, admin.id);
      return { admin, key: session.key, sessionId: session.id, headers: session.headers };
    },
    async close() {
      await app.close();
      await testDb.drop();
      await smtp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Matches any ATOM timestamp (`2026-11-22T09:30:00+00:00`), for whole-body comparisons. */
export const ATOM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

/** Asserts a value matches an ATOM timestamp and returns it, so whole bodies can be compared with it in place. */
export function atom(value: unknown): string {
  if (typeof value !== 'string' || !ATOM.test(value)) throw new Error(`not an ATOM timestamp: ${String(value)}`);
  return value;
}

/**
 * Waits until the app's mail queue is empty: every mail the requests so far queued has been handed to the SMTP sink
 * (or given up). System mail leaves after the answer, so a test reads the sink after this.
 */
export async function mailQueueDrained(t: Pick<TestApp, 'db'>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await t.db.select({ n: sql<number>`count(*)::int` }).from(mailQueue);
    if ((row?.n ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error(`mail queue: ${row?.n} mails still waiting after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits until the one queued mail has failed `attempts` times (nothing listens on the SMTP port), then answers its
 * row: it is still queued, of `kind`, and its last error does not name `address` (the log keeps no address).
 */
export async function queuedMailRetried(t: Pick<TestApp, 'db'>, kind: string, address: string, attempts = 2): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await t.db.select().from(mailQueue);
    assert.ok(row, 'the mail waits in the queue');
    if (row.attempts >= attempts) {
      assert.equal(row.kind, kind);
      assert.ok(row.lastError && !row.lastError.includes(address), `last error without the address: ${row.lastError}`);
      return;
    }
    assert.ok(Date.now() < deadline, 'retried within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `skip` of tests that hold a lock on a second connection: PGlite is one connection. */
export const PG_ONLY = process.env.DATABASE_URL ? false : 'needs PostgreSQL: PGlite is one connection, so nothing can hold a lock meanwhile';

/** The SQLSTATE a statement failed with (the driver's, or the one Drizzle wraps as `cause`); undefined when it succeeded. */
export async function errorCodeOf(statement: Promise<unknown>): Promise<string | undefined> {
  try {
    await statement;
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } };
    return e.code ?? e.cause?.code;
  }
  return undefined;
}

/**
 * Runs `work` in a transaction on `db` that gives up after `ms` waiting for a row lock: '55P03' when something held
 * the rows it wanted, 'done' when it went through, else the error's code.
 */
export async function withinLockTimeout(db: TestApp['db'], ms: number, work: (tx: TestApp['db']) => Promise<unknown>): Promise<string> {
  const code = await errorCodeOf(
    db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local lock_timeout = '${Math.trunc(ms)}ms'`));
      await work(tx as unknown as TestApp['db']);
    }),
  );
  return code ?? 'done';
}
