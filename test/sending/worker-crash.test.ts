import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, queryRows, type Database } from '../../src/db/client.js';
import { goldenPglitePath, openTestDatabase, type TestDatabase } from '../db.js';
import { entryArgs } from '../process.js';
import { createAdmin, createList, createSessionKey } from '../factories.js';
import { startSmtpSink, type SmtpSink } from '../smtp-sink.js';
import { mailsOf, sendableCampaign } from './send-fixtures.js';

/*
 * Issue 17: kill -9 of a sending process, then a restart. The rows the dead process held must be sent again within
 * 15 s of the kill (they waited for a 120 s lease), and nothing beyond them twice. Real processes
 * (`node --import tsx src/worker.ts`) with the default SEND_LEASE_SECONDS: on PostgreSQL, and on embedded PGlite in a
 * DATA_DIR (the killed and the restarted process take turns on it; nothing else can open it meanwhile).
 */

const RECIPIENTS = 800;
const KILL_AT = 300;
const BATCH = 50;
const LANES = 3; // the worker's default
const RESUME_WITHIN_MS = 15_000;

interface Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr: string;
}

const children: Worker[] = [];
after(() => {
  for (const w of children) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
});

/**
 * A sending process: the worker on PostgreSQL; on PGlite the service itself (which sends campaigns unless
 * SEND_WORKER=off), since extra workers need PostgreSQL. Built, as `npm start` runs it, when the build is current.
 */
function startWorkerProcess(env: Record<string, string>): Worker {
  const base = { ...process.env };
  delete base.SEND_LEASE_SECONDS; // the default is what is under test
  const child = spawn(process.execPath, entryArgs(env.DATABASE_URL ? 'worker' : 'server'), {
    env: { ...base, LOG_LEVEL: 'warn', SEND_POLL_MS: '50', SEND_BATCH_SIZE: String(BATCH), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const worker: Worker = { child, stderr: '', exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
  child.stderr!.on('data', (chunk: Buffer) => (worker.stderr += chunk.toString()));
  children.push(worker);
  return worker;
}

async function kill9(worker: Worker): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.exited;
}

/** `count` confirmed members of a new list, in two statements. */
async function bigList(database: Database, prefix: string, count: number): Promise<number> {
  const list = await createList(database.db);
  await database.db.execute(sql`
    insert into subscribers (email, unique_id, confirmed)
    select ${prefix} || '-' || g || '@example.com', md5(${prefix} || g), true from generate_series(1, ${count}) g`);
  await database.db.execute(sql`
    insert into subscriptions (list_id, subscriber_id) select ${list.id}, id from subscribers where email like ${`${prefix}-%`}`);
  return list.id;
}

/** A submitted campaign to RECIPIENTS members, made through the API of an app on `database`. */
async function submittedCampaign(app: FastifyInstance, database: Database, prefix: string): Promise<number> {
  const listId = await bigList(database, prefix, RECIPIENTS);
  const campaign = await sendableCampaign(database.db, [listId]);
  const admin = await createAdmin(database.db);
  const { headers } = await createSessionKey(database.db, admin.id);
  const res = await app.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return campaign.id;
}

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number, worker?: Worker): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${worker ? `; worker stderr: ${worker.stderr}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const recipientsReceived = (sink: SmtpSink, campaignId: number) => new Set(mailsOf(sink, campaignId).flatMap((m) => m.envelope.to)).size;

function duplicateDeliveries(sink: SmtpSink, campaignId: number): number {
  const seen = new Map<string, number>();
  for (const m of mailsOf(sink, campaignId)) {
    const id = String(m.parsed.headers.get('x-mailroom-delivery'));
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  return [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
}

/**
 * Runs worker A until the sink has KILL_AT of the campaign, kill -9s it, starts worker B, and answers how long after
 * the kill every recipient had their mail. `held` reads the rows in flight at the kill (null where the database
 * cannot be read while a worker has it).
 */
async function killAndRestart(sink: SmtpSink, campaignId: number, env: Record<string, string>, held: () => Promise<number | null>) {
  const first = startWorkerProcess(env);
  await until(`${KILL_AT} mails`, () => mailsOf(sink, campaignId).length >= KILL_AT, 120_000, first);
  await kill9(first);
  const killedAt = Date.now();
  const receivedAtKill = recipientsReceived(sink, campaignId);
  const inFlight = await held();
  const mailsAtKill = mailsOf(sink, campaignId).length;
  const second = startWorkerProcess(env);
  // When the new process sent its first mail: how long starting a process took on this machine.
  let startupMs = 0;
  await until(
    'every recipient',
    () => {
      if (!startupMs && mailsOf(sink, campaignId).length > mailsAtKill) startupMs = Date.now() - killedAt;
      return recipientsReceived(sink, campaignId) === RECIPIENTS;
    },
    120_000,
    second,
  );
  const resumedMs = Date.now() - killedAt;
  return { second, resumedMs, startupMs, receivedAtKill, inFlight };
}

describe('kill -9 of a sending process, then a restart', () => {
  test(
    "on PostgreSQL: the dead worker's rows are sent within 15 s of the kill; duplicates only among them",
    { skip: !process.env.DATABASE_URL && 'needs PostgreSQL', timeout: 240_000 },
    async (t) => {
      const testDb: TestDatabase = await openTestDatabase();
      const sink = await startSmtpSink();
      const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-crash-'));
      const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, SMTP_URL: sink.url, SEND_WORKER: 'off' });
      const app = await buildApp({ config, database: testDb.database, migrate: false });
      try {
        const campaignId = await submittedCampaign(app, testDb.database, 'crashpg');
        const sending = async () =>
          (
            await queryRows<{ n: number }>(
              testDb.database.db,
              sql`select count(*)::int as n from deliveries where campaign_id = ${campaignId} and status = 'sending'`,
            )
          )[0]!.n;
        const env = { DATABASE_URL: testDb.url, DATA_DIR: dataDir, SMTP_URL: sink.url };
        const run = await killAndRestart(sink, campaignId, env, sending);
        t.diagnostic(
          `all sent ${run.resumedMs} ms after the kill; the new process's first mail after ${run.startupMs} ms; ${run.inFlight} in flight, ${duplicateDeliveries(sink, campaignId)} duplicates`,
        );
        assert.ok(run.receivedAtKill < RECIPIENTS, 'killed mid-campaign');
        assert.ok(run.inFlight! > 0, 'the dead worker held rows when it was killed');
        assert.ok(run.resumedMs < RESUME_WITHIN_MS, `every recipient had their mail ${run.resumedMs} ms after the kill`);
        assert.ok(duplicateDeliveries(sink, campaignId) <= run.inFlight!, 'duplicates bounded by what was in flight');

        await until(
          'the campaign sent',
          async () => {
            const res = await app.inject({ method: 'GET', url: `/api/v2/campaigns/${campaignId}`, headers: await adminHeaders(testDb.database) });
            return res.json().message_metadata.status === 'sent';
          },
          30_000,
          run.second,
        );
        const rows = await queryRows<{ status: string; n: number }>(
          testDb.database.db,
          sql`select status, count(*)::int as n from deliveries where campaign_id = ${campaignId} group by status`,
        );
        assert.deepEqual(rows, [{ status: 'sent', n: RECIPIENTS }]);
        run.second.child.kill('SIGTERM');
        assert.equal(await run.second.exited, 0, run.second.stderr);
      } finally {
        await app.close();
        await testDb.drop();
        await sink.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  test(
    "on embedded PGlite: the restarted process sends the dead one's rows at once",
    { skip: Boolean(process.env.DATABASE_URL) && 'PGlite only', timeout: 240_000 },
    async (t) => {
      const sink = await startSmtpSink();
      const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-crash-'));
      const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, SMTP_URL: sink.url, SEND_WORKER: 'off' });
      try {
        // The golden database, written to DATA_DIR/pgdata, as a service would have it.
        const golden = new Blob([readFileSync(goldenPglitePath())]);
        let database = await createDatabase({ databaseUrl: '', dataDir, loadDataDir: golden });
        let app = await buildApp({ config, database, migrate: false });
        const campaignId = await submittedCampaign(app, database, 'crashlite');
        await app.close();

        const env = { DATABASE_URL: '', DATA_DIR: dataDir, SMTP_URL: sink.url, SEND_WORKER: 'on', PORT: '0' };
        const run = await killAndRestart(sink, campaignId, env, async () => null);
        t.diagnostic(
          `all sent ${run.resumedMs} ms after the kill; the new process's first mail after ${run.startupMs} ms; ${duplicateDeliveries(sink, campaignId)} duplicates`,
        );
        assert.ok(run.receivedAtKill < RECIPIENTS, 'killed mid-campaign');
        // Only the new process can open the database, so it can only resume once started (seconds on a busy machine).
        const afterStart = run.resumedMs - run.startupMs;
        assert.ok(afterStart < RESUME_WITHIN_MS, `every recipient had their mail ${afterStart} ms after the new process's first`);
        assert.ok(duplicateDeliveries(sink, campaignId) <= BATCH * LANES, 'duplicates bounded by the batches in flight');
        run.second.child.kill('SIGTERM');
        assert.equal(await run.second.exited, 0, run.second.stderr);

        database = await createDatabase({ databaseUrl: '', dataDir });
        app = await buildApp({ config, database, migrate: false });
        try {
          const rows = await queryRows<{ status: string; n: number }>(
            database.db,
            sql`select status, count(*)::int as n from deliveries where campaign_id = ${campaignId} group by status`,
          );
          assert.deepEqual(rows, [{ status: 'sent', n: RECIPIENTS }]);
        } finally {
          await app.close();
        }
      } finally {
        await sink.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});

async function adminHeaders(database: Database): Promise<Record<string, string>> {
  const admin = await createAdmin(database.db);
  return (await createSessionKey(database.db, admin.id)).headers;
}
