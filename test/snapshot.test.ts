import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/client.js';
import { attributeDefinitions, attributeOptions } from '../src/db/schema/index.js';
import { createAdmin, createList, createSessionKey } from './factories.js';
import { openTestDatabase, TEST_PG_PREFIX, withDatabaseName } from './db.js';
import { dsn } from './messaging/bounce-samples.js';
import { multipart } from './multipart.js';
import { spawnProcess } from './process.js';
import { listWithMembers, mailsOf, sendableCampaign, withWorker } from './sending/send-fixtures.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

/*
 * npm run backup and npm run restore, as an operator runs them: the documented move from the embedded database to
 * PostgreSQL (and back, in the PostgreSQL pass). A database with lists, 10,000 subscribers with attributes and a sent
 * campaign with opens, clicks and bounces is backed up while its service runs, restored into an empty database of
 * the other kind, and the API must answer the same there.
 */

const sourceKind = process.env.DATABASE_URL ? 'postgres' : 'pglite';
const PG_BASE = process.env.DATABASE_URL ?? process.env.CI_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const INBOUND = 'snapshot-test-inbound-token-0123';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36';
const SUBSCRIBERS = 10_000;

const work = mkdtempSync(join(tmpdir(), 'mailroom-snapshot-'));
const cleanups: (() => Promise<void>)[] = [];

/** Runs `npm run backup|restore -- file` (the script itself, through tsx) with `env`; its exit code and stderr. */
async function cli(command: 'backup' | 'restore', file: string, env: Record<string, string>) {
  const running = spawnProcess(process.execPath, ['--import', 'tsx', `scripts/${command}.ts`, file], { LOG_LEVEL: 'silent', ...env });
  const { code } = await running.exited;
  return { code, stderr: running.stderr };
}

/** A new, empty PostgreSQL database, dropped after the file. */
async function emptyPostgres(): Promise<string> {
  const name = `${TEST_PG_PREFIX}snap_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query(`create database "${name}"`).finally(() => admin.end());
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: PG_BASE });
    await client.connect();
    await client.query(`drop database if exists "${name}" with (force)`).finally(() => client.end());
  });
  return withDatabaseName(PG_BASE, name);
}

/** An empty target of the other kind than the source: the environment `npm run restore` is given. */
async function emptyTarget(): Promise<Record<string, string>> {
  if (sourceKind === 'pglite') return { DATABASE_URL: await emptyPostgres() };
  return { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(work, 'target-')) };
}

/** What a restore left in a target: tables in its schema (PostgreSQL), or entries in its DATA_DIR (PGlite). */
async function leftIn(target: Record<string, string>): Promise<number> {
  if (!target.DATABASE_URL) return readdirSync(target.DATA_DIR!).length;
  const client = new pg.Client({ connectionString: target.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from information_schema.tables where table_schema = 'public'`);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_BASE, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

describe(`npm run backup and npm run restore (${sourceKind} → ${sourceKind === 'pglite' ? 'PostgreSQL' : 'PGlite'})`, async () => {
  const reachable = sourceKind === 'postgres' || (await postgresReachable());
  let sink: SmtpSink;
  let sourceEnv: Record<string, string>;
  let close: () => Promise<void>;
  let headers: Record<string, string>;
  let campaignId: number;
  let answers: Map<string, unknown>;
  /** The UTC day the answers were read on: the dashboard's windows end today, so its answer moves at midnight. */
  let answersDay: string;
  const utcDay = () => new Date().toISOString().slice(0, 10);
  const DATED = new Set(['/api/v2/analytics/dashboard']);
  const file = join(work, 'mailroom.snapshot.gz');

  // The pages and figures an operator and a phpList client read; each must be the same after the move.
  const readings = (campaign: number, lists: number[]) => [
    '/api/v2/lists',
    ...lists.flatMap((id) => [`/api/v2/lists/${id}/subscribers/count`, `/api/v2/lists/${id}/subscribers?limit=50`]),
    '/api/v2/subscribers?limit=100',
    '/api/v2/subscribers?limit=100&after_id=5000',
    '/api/v2/attributes',
    `/api/v2/campaigns/${campaign}`,
    `/api/v2/campaigns/${campaign}/stats`,
    `/api/v2/campaigns/${campaign}/deliveries`,
    `/api/v2/campaigns/${campaign}/bounces`,
    '/api/v2/analytics/campaigns',
    '/api/v2/analytics/dashboard',
    '/api/v2/bounces',
  ];

  before(async () => {
    if (!reachable) return;
    sink = await startSmtpSink();
    const overrides = {
      LOG_LEVEL: 'silent',
      PGLITE_MAX_WAIT_MS: '0',
      SMTP_URL: sink.url,
      SEND_WORKER: 'off',
      TRACKING_MACHINE_SECONDS: '0',
      BOUNCE_INBOUND_TOKEN: INBOUND,
    };
    let app: Awaited<ReturnType<typeof buildApp>>;
    if (sourceKind === 'pglite') {
      // Its own DATA_DIR, opened by buildApp as npm start does: the backup has to come through this process.
      const dataDir = mkdtempSync(join(work, 'source-'));
      sourceEnv = { DATABASE_URL: '', DATA_DIR: dataDir };
      app = await buildApp({ config: loadConfig({ ...overrides, DATA_DIR: dataDir, DATABASE_URL: '' }) });
    } else {
      const database = await openTestDatabase();
      cleanups.push(() => database.drop());
      sourceEnv = { DATABASE_URL: database.url };
      app = await buildApp({ config: loadConfig({ ...overrides, DATABASE_URL: database.url }), database: database.database, migrate: false });
    }
    await app.ready();
    close = () => app.close();
    const db = app.ctx.db;

    const admin = await createAdmin(db);
    headers = (await createSessionKey(db, admin.id)).headers;
    const [city] = await db.insert(attributeDefinitions).values({ name: 'City', type: 'textline' }).returning();
    const [colour] = await db.insert(attributeDefinitions).values({ name: 'Colour', type: 'select' }).returning();
    await db.insert(attributeOptions).values([
      { definitionId: colour!.id, name: 'Red', listOrder: 1 },
      { definitionId: colour!.id, name: 'Blue', listOrder: 2 },
    ]);
    assert.ok(city);
    const everyone = await createList(db, { name: 'Everyone' });
    const rows = Array.from({ length: SUBSCRIBERS }, (_, i) => `person${i}@example.org,1,Town ${i % 97},${i % 2 ? 'Red' : 'Blue'}`);
    const body = multipart([{ name: 'file', filename: 'people.csv', content: `email,confirmed,City,Colour\n${rows.join('\n')}\n` }]);
    const imported = await app.inject({
      method: 'POST',
      url: `/api/v2/subscribers/import?list_id=${everyone.id}`,
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
    assert.equal(imported.statusCode, 200, imported.body);

    const { list: readers, members } = await listWithMembers(db, 40, { domain: 'readers.example' });
    const campaign = await sendableCampaign(db, [readers.id], {
      subject: 'Before the move',
      body: '<p>Read <a href="https://example.com/story">the story</a>.</p>',
    });
    campaignId = campaign.id;
    const sent = await app.inject({ method: 'POST', url: `/api/v2/campaigns/${campaignId}/send`, headers });
    assert.equal(sent.statusCode, 200, sent.body);
    await withWorker(app.ctx, {}, async (worker) => {
      for (let i = 0; i < 10; i++) await worker.runOnce();
    });
    const mails = mailsOf(sink, campaignId);
    assert.equal(mails.length, 40);
    for (const member of members.slice(0, 12)) {
      await app.inject({ method: 'GET', url: `/t/open.gif?u=${member.uniqueId}&m=${campaignId}`, headers: { 'user-agent': BROWSER } });
    }
    for (const mail of mails.slice(0, 5)) {
      const link = /https?:\/\/[^\s"<>]+\/lt\/[A-Za-z0-9_-]+/.exec(String(mail.parsed.html))![0];
      const clicked = await app.inject({ method: 'GET', url: new URL(link).pathname, headers: { 'user-agent': BROWSER } });
      assert.equal(clicked.statusCode, 302);
    }
    for (const mail of mails.slice(30, 33)) {
      const bounce = dsn({ original: mail.raw, recipient: mail.envelope.to[0]!, fullMessage: true });
      const res = await app.inject({
        method: 'POST',
        url: '/api/v2/bounces/inbound',
        headers: { authorization: `Bearer ${INBOUND}`, 'content-type': 'message/rfc822' },
        payload: bounce,
      });
      assert.ok(res.statusCode < 300, res.body);
    }
    await app.ctx.events.flush();
    await app.ctx.bounceCounts.fold();

    answers = new Map();
    answersDay = utcDay();
    for (const url of readings(campaignId, [everyone.id, readers.id])) {
      const res = await app.inject({ method: 'GET', url, headers });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      answers.set(url, res.json());
    }
    // What is compared holds what the test made: the figures would match trivially if they were empty.
    const stats = answers.get(`/api/v2/campaigns/${campaignId}/stats`) as { opens: { total: number }; clicks: { total: number }; bounces: number };
    assert.ok(stats.opens.total >= 12 && stats.clicks.total === 5 && stats.bounces === 3, JSON.stringify(stats));
    const count = answers.get(`/api/v2/lists/${everyone.id}/subscribers/count`) as { subscribers_count: number };
    assert.deepEqual(count, { subscribers_count: SUBSCRIBERS });
  });

  after(async () => {
    await close?.();
    await sink?.close();
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  test('a backup taken while the service runs restores into an empty database of the other kind, and the API answers the same', async (t) => {
    if (!reachable) return t.skip(`PostgreSQL at ${PG_BASE} cannot be reached`);
    const backup = await cli('backup', file, sourceEnv);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stderr, sourceKind === 'pglite' ? /from the running service/ : /from PostgreSQL/);
    // The service is still serving: its own answers have not moved.
    await close();
    close = async () => {};

    const target = await emptyTarget();
    const restored = await cli('restore', file, target);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stderr, /restored \d+ rows of \d+ tables/);

    const config = loadConfig({ LOG_LEVEL: 'silent', SEND_WORKER: 'off', PGLITE_MAX_WAIT_MS: '0', ...target });
    const database = await createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    const app = await buildApp({ config, database, migrate: false });
    try {
      // The administrator's session key works as before: sessions, secrets and ids came along.
      for (const [url, before] of answers) {
        // Read on both sides of midnight (UTC), the dashboard's days have moved on: not a difference the move made.
        if (DATED.has(url) && utcDay() !== answersDay) {
          t.diagnostic(`${url} not compared: read on ${answersDay}, and now it is ${utcDay()}`);
          continue;
        }
        const res = await app.inject({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.deepEqual(res.json(), before, url);
      }
      const total = (answers.get('/api/v2/lists') as { items: { subscriber_count?: number }[] }).items;
      assert.ok(total.length >= 2);
      // New rows get new ids past the restored ones (the sequences moved).
      const list = await app.inject({ method: 'POST', url: '/api/v2/lists', headers, payload: { name: 'After the move' } });
      assert.equal(list.statusCode, 201, list.body);
    } finally {
      await app.close();
    }

    // The same file again, into the database it now fills: refused, nothing written.
    const again = await cli('restore', file, target);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /mailroom restore: the target database is not empty \(table \w+ holds data\)/);
  });

  test('a snapshot of a newer schema, a file that is not one, and a cut-off file are refused with a clear message', async (t) => {
    if (!reachable) return t.skip(`PostgreSQL at ${PG_BASE} cannot be reached`);
    const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
    const header = JSON.parse(lines[0]!) as { schema: { migrations: number; last: string } };
    const newer = join(work, 'newer.gz');
    writeFileSync(
      newer,
      gzipSync(
        [JSON.stringify({ ...header, schema: { migrations: header.schema.migrations + 1, last: '9999_future' } }), ...lines.slice(1)].join('\n'),
      ),
    );
    const newerTarget = await emptyTarget();
    const refused = await cli('restore', newer, newerTarget);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /comes from a newer Mailroom \(schema \d+, 9999_future\).*upgrade Mailroom, then restore/);
    // Refused from the header alone: the target was not even opened (no schema, no new DATA_DIR cluster).
    assert.equal(await leftIn(newerTarget), 0);

    const notOne = join(work, 'not-a-snapshot.gz');
    writeFileSync(notOne, 'email\nsomeone@example.org\n');
    const notOneTarget = await emptyTarget();
    const plain = await cli('restore', notOne, notOneTarget);
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /is not a snapshot written by npm run backup/);
    assert.equal(await leftIn(notOneTarget), 0);

    const cut = join(work, 'cut.gz');
    writeFileSync(cut, gzipSync(lines.slice(0, Math.floor(lines.length / 2)).join('\n')));
    const target = await emptyTarget();
    const cutOff = await cli('restore', cut, target);
    assert.equal(cutOff.code, 1);
    assert.match(cutOff.stderr, /the snapshot ends early .*cut off or damaged/);
    // Nothing of the cut-off file stayed behind: the same target takes a whole snapshot afterwards.
    const whole = await cli('restore', file, target);
    assert.equal(whole.code, 0, whole.stderr);
  });
});
