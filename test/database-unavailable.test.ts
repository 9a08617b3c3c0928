import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/client.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { createAdmin, createSessionKey } from './factories.js';

/*
 * PostgreSQL gone while the service runs: the service reaches it through a TCP proxy this test starts, then closes
 * (open connections cut, new ones refused), then opens again on the same port.
 */

class Proxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
    this.server = null;
  }
}

describe('PostgreSQL unreachable', { skip: !process.env.DATABASE_URL && 'PostgreSQL only' }, () => {
  let testDb: TestDatabase;
  let proxy: Proxy;
  let app: FastifyInstance;
  let dataDir: string;
  let headers: Record<string, string>;

  before(async () => {
    testDb = await openTestDatabase();
    await testDb.database.close();
    const target = new URL(testDb.url);
    proxy = new Proxy(target.hostname, Number(target.port || 5432));
    await proxy.open();
    const viaProxy = new URL(testDb.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-unreachable-'));
    const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, SEND_WORKER: 'off' });
    const database = await createDatabase({ databaseUrl: viaProxy.toString(), poolSize: 2 });
    app = await buildApp({ config, database, migrate: false });
    await app.ready();
    const admin = await createAdmin(app.ctx.db, {});
    ({ headers } = await createSessionKey(app.ctx.db, admin.id));
  });

  after(async () => {
    await app?.close();
    await proxy?.close();
    await testDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('requests answer 503 with Retry-After while it is gone, and 200 again once it is back', { timeout: 60_000 }, async () => {
    const lists = () => app.inject({ method: 'GET', url: '/api/v2/lists', headers });
    assert.equal((await lists()).statusCode, 200);

    await proxy.close();
    for (const attempt of [1, 2]) {
      const response = await lists();
      assert.equal(response.statusCode, 503, `attempt ${attempt}: ${response.body}`);
      assert.equal(response.headers['retry-after'], '5');
      assert.deepEqual(response.json(), { message: 'The database is unreachable: try again shortly.' });
    }

    await proxy.open();
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await lists()).statusCode;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 200, 'recovers within 5 s of the database coming back');
  });
});
