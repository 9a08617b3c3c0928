import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openTestDatabase, type TestDatabase } from './db.js';

/*
 * Load shedding (src/plugins/overload.ts) on the embedded database. PGLITE_MAX_REQUESTS=2: requests beyond two in the
 * house get 503 at once; requests are held in the house by an open transaction, which holds PGlite's one connection.
 * PGLITE_MAX_WAIT_MS: while the database's oldest statement has waited longer, new requests get 503 at once.
 */

const pglite = !process.env.DATABASE_URL;

interface Started {
  testDb: TestDatabase;
  app: FastifyInstance;
  dataDir: string;
}

async function start(env: Record<string, string>): Promise<Started> {
  const testDb = await openTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-overload-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: testDb.url, SEND_WORKER: 'off', ...env });
  const app = await buildApp({ config, database: testDb.database, migrate: false });
  await app.ready();
  return { testDb, app, dataDir };
}

async function stop(started: Started | undefined): Promise<void> {
  await started?.app.close();
  await started?.testDb.drop();
  if (started) rmSync(started.dataDir, { recursive: true, force: true });
}

describe('PGLITE_MAX_REQUESTS', () => {
  let running: Started;
  let testDb: TestDatabase;
  let app: FastifyInstance;

  before(async () => {
    // No wait bound here: what is shed, is shed for the count.
    running = await start({ PGLITE_MAX_REQUESTS: '2', PGLITE_MAX_WAIT_MS: '0' });
    ({ testDb, app } = running);
  });

  after(() => stop(running));

  /** Runs `fn` while a transaction holds the database, so requests that query it wait in the house. */
  async function whileDatabaseHeld(fn: () => Promise<void>): Promise<void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const begun = new Promise<void>((resolve) => (started = resolve));
    const transaction = app.ctx.db.transaction(async () => {
      started();
      await held;
    });
    await begun;
    try {
      await fn();
    } finally {
      release();
      await transaction;
    }
  }

  test(
    'past the limit a request is answered 503 with Retry-After at once; /healthz always; then all is served again',
    { skip: !pglite && 'the limit applies to the embedded database only', timeout: 30_000 },
    async () => {
      let waiting: Promise<LightMyRequestResponse>[] = [];
      await whileDatabaseHeld(async () => {
        waiting = [app.inject({ method: 'GET', url: '/readyz' }), app.inject({ method: 'GET', url: '/readyz' })];
        await new Promise((resolve) => setTimeout(resolve, 50)); // both are in the house, waiting for the database

        const shed = await app.inject({ method: 'GET', url: '/api/v2/lists' });
        assert.equal(shed.statusCode, 503);
        assert.equal(shed.headers['retry-after'], '1');
        assert.deepEqual(shed.json(), { message: 'The service is overloaded: try again shortly.' });
        assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness is never shed');
      });
      // Released, the two admitted ones are answered normally.
      for (const response of await Promise.all(waiting)) assert.equal(response.statusCode, 200);
      // Each answered request left the count: three at a time fit again, one after the other.
      for (let i = 0; i < 3; i++) assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    },
  );

  test(
    'a slow statement on the database thread leaves the service answering: /healthz and 503 come back over HTTP meanwhile',
    { skip: !pglite && 'the embedded database only', timeout: 60_000 },
    async () => {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      // pg_sleep is synchronous in PGlite: in-process, it froze the thread that accepts connections for its duration.
      let finished = false;
      const slow = testDb.database.db.prepared('slow', 'select pg_sleep(8)', []).then(() => (finished = true));
      const health = await fetch(`${address}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(finished, false, '/healthz was answered while the statement ran');

      // Two requests that need the database fill the house; the next one is shed at once, over a real connection.
      const waiting = [app.inject({ method: 'GET', url: '/readyz' }), app.inject({ method: 'GET', url: '/readyz' })];
      await new Promise((resolve) => setTimeout(resolve, 50));
      const shed = await fetch(`${address}/api/v2/lists`);
      assert.equal(shed.status, 503);
      assert.equal(shed.headers.get('retry-after'), '1');
      assert.deepEqual(await shed.json(), { message: 'The service is overloaded: try again shortly.' });
      assert.equal(finished, false, 'the 503 was answered while the statement ran');

      await slow;
      for (const response of await Promise.all(waiting)) assert.equal(response.statusCode, 200);
    },
  );

  test('on PostgreSQL nothing is shed', { skip: pglite && 'PostgreSQL only', timeout: 30_000 }, async () => {
    const responses = await Promise.all([1, 2, 3, 4].map(() => app.inject({ method: 'GET', url: '/readyz' })));
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [200, 200, 200, 200],
    );
  });
});

describe('PGLITE_MAX_WAIT_MS', { skip: !pglite && 'the embedded database only' }, () => {
  let started: Started;

  before(async () => {
    started = await start({ PGLITE_MAX_REQUESTS: '0', PGLITE_MAX_WAIT_MS: '300' });
  });

  after(() => stop(started));

  test(
    'while a statement has waited past the bound, new requests get 503 at once; /healthz always; then all is served again',
    { timeout: 60_000 },
    async () => {
      const { app, testDb } = started;
      let finished = false;
      const slow = testDb.database.db.prepared('slow', 'select pg_sleep(6)', []).then(() => (finished = true));
      // Waits on the database's own state, not on a clock: the statement has now been running for longer than the bound.
      while (testDb.database.waitingMs!() <= 300) await new Promise((resolve) => setTimeout(resolve, 20));

      const shed = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(shed.statusCode, 503);
      assert.equal(shed.headers['retry-after'], '1');
      assert.deepEqual(shed.json(), { message: 'The service is overloaded: try again shortly.' });
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness is never shed');
      assert.equal(finished, false, 'shed while the statement ran, not after it');

      await slow;
      assert.equal(testDb.database.waitingMs!(), 0);
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    },
  );
});
