import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { createAdmin, createSessionKey } from './factories.js';
import { clientKey } from '../src/plugins/request-limits.js';

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
      // The process's own pollers (settings, the mail queue's drain) queued statements behind the slow one; they run
      // now, and then nothing waits.
      while (testDb.database.waitingMs!() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    },
  );
});

/*
 * Issue 23: clients that send a request's headers, announce a body and never send it. They wait outside the shedder's
 * house (counted only once read), each address may hold CLIENT_MAX_REQUESTS at once, and REQUEST_IDLE_TIMEOUT_MS cuts
 * them off. Real sockets on a listening service: app.inject has no connection to hold.
 */
describe('stalled request bodies', () => {
  /** Opens `count` connections that send a login's headers with a Content-Length and never the body. */
  async function stall(app: FastifyInstance, port: number, count: number, headers: Record<string, string> = {}): Promise<Socket[]> {
    let seen = 0;
    const reached = new Promise<void>((resolve) => {
      const onRequest = () => {
        if (++seen < count) return;
        app.server.off('request', onRequest);
        resolve();
      };
      app.server.on('request', onRequest);
    });
    const extra = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const sockets = await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.off('error', reject).on('error', () => {}); // reset when the service cuts it off
              socket.write(
                `POST /api/v2/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n${extra}\r\n`,
              );
              resolve(socket);
            });
            socket.once('error', reject);
          }),
      ),
    );
    await reached; // node has read every one's headers and handed them to Fastify's hooks
    await new Promise((resolve) => setTimeout(resolve, 100));
    return sockets;
  }

  const login = (address: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${address}/api/v2/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  test('64 held at the default PGLITE_MAX_REQUESTS: another client logs in and reads the API meanwhile', { timeout: 60_000 }, async () => {
    // The per-client cap off: this is about the shared budget alone.
    const started = await start({ PGLITE_MAX_WAIT_MS: '0', CLIENT_MAX_REQUESTS: '0' });
    const sockets: Socket[] = [];
    try {
      const { app, testDb } = started;
      const admin = await createAdmin(testDb.database.db, { loginName: 'patient', password: 'Patient-Password-1' });
      const session = await createSessionKey(testDb.database.db, admin.id);
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as { port: number }).port;
      sockets.push(...(await stall(app, port, 64)));

      const loggedIn = await login(address, { login_name: 'patient', password: 'Patient-Password-1' });
      assert.equal(loggedIn.status, 201, await loggedIn.clone().text());
      const lists = await fetch(`${address}/api/v2/lists`, { headers: session.headers });
      assert.equal(lists.status, 200);
      assert.equal((await fetch(`${address}/healthz`)).status, 200);
      assert.ok(
        sockets.every((s) => !s.destroyed),
        'the 64 are still held',
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await stop(started);
    }
  });

  test(
    'CLIENT_MAX_REQUESTS per client address: the holder gets 429 with Retry-After, another address logs in; ' +
      'REQUEST_IDLE_TIMEOUT_MS closes the held connections, and a slow body that keeps coming is read',
    { timeout: 60_000 },
    async () => {
      const started = await start({ CLIENT_MAX_REQUESTS: '4', REQUEST_IDLE_TIMEOUT_MS: '1000', TRUST_PROXY: 'true' });
      const sockets: Socket[] = [];
      try {
        const { app, testDb } = started;
        await createAdmin(testDb.database.db, { loginName: 'neighbour', password: 'Neighbour-Password-1' });
        const address = await app.listen({ port: 0, host: '127.0.0.1' });
        const port = (app.server.address() as { port: number }).port;
        const since = performance.now();
        sockets.push(...(await stall(app, port, 4, { 'x-forwarded-for': '203.0.113.9' })));
        const closed = sockets.map((s) => new Promise<number>((resolve) => s.once('close', () => resolve(performance.now() - since))));

        const holder = await fetch(`${address}/readyz`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
        assert.equal(holder.status, 429);
        assert.equal(holder.headers.get('retry-after'), '1');
        assert.deepEqual(await holder.json(), { message: 'Too many requests in progress from your address: try again shortly.' });
        const other = await login(address, { login_name: 'neighbour', password: 'Neighbour-Password-1' }, { 'x-forwarded-for': '198.51.100.4' });
        assert.equal(other.status, 201);

        // Cut off after a second without a byte (node checks every quarter of it), not before.
        for (const ms of await Promise.all(closed)) assert.ok(ms >= 900 && ms < 10_000, `closed after ${Math.round(ms)} ms`);
        // Their places are free again.
        assert.equal((await fetch(`${address}/readyz`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status, 200);

        // A body that arrives slowly, but never a second apart, is read: 5 pieces 400 ms apart.
        const body = JSON.stringify({ login_name: 'neighbour', password: 'Neighbour-Password-1' });
        const pieces = Array.from({ length: 5 }, (_, i) => body.slice((i * body.length) / 5, ((i + 1) * body.length) / 5));
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', async () => {
            socket.write(
              `POST /api/v2/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
            );
            for (const piece of pieces) {
              await new Promise((r) => setTimeout(r, 400));
              socket.write(piece);
            }
          });
          let text = '';
          socket.on('data', (chunk) => (text += chunk.toString()));
          socket.on('end', () => resolve(text));
          socket.on('error', reject);
        });
        assert.match(answer, /^HTTP\/1\.1 201 /);
      } finally {
        for (const socket of sockets) socket.destroy();
        await stop(started);
      }
    },
  );
});

test('clientKey: an IPv4 address as it is, an IPv6 address by its /64 (one line usually holds a whole /64)', () => {
  assert.equal(clientKey('203.0.113.9'), '203.0.113.9');
  assert.equal(clientKey('::ffff:203.0.113.9'), '203.0.113.9');
  assert.equal(clientKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:0DB8:0001:0002::9'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey('::1'), '0:0:0:0::/64');
  assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
});
