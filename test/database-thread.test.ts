import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { isDatabaseUnreachable, queryRows } from '../src/db/client.js';
import { driverCode } from '../src/shared/errors.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { createAdmin, createSessionKey } from './factories.js';

/*
 * The embedded database on its own thread (src/db/pglite-thread.ts): transactions stay atomic and alone on its one
 * connection, driver errors keep their SQLSTATE across the thread, and a thread that is gone is a database that is
 * unreachable (503), not a hang.
 */

const skip = Boolean(process.env.DATABASE_URL) && 'the embedded database only';

describe('the embedded database thread', { skip }, () => {
  let testDb: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;

  before(async () => {
    testDb = await openTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-thread-'));
    const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, SEND_WORKER: 'off' });
    app = await buildApp({ config, database: testDb.database, migrate: false });
    await app.ready();
    await app.ctx.db.execute(sql`create table thread_probe (n integer primary key)`);
  });

  after(async () => {
    await app?.close();
    await testDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const count = async () => Number((await queryRows<{ n: number }>(app.ctx.db, sql`select count(*)::int as n from thread_probe`))[0]!.n);

  test('a statement sent while a transaction is open waits for its end and sees all of it', async () => {
    await app.ctx.db.execute(sql`delete from thread_probe`);
    const order: string[] = [];
    let outside: Promise<number> | undefined;
    await app.ctx.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values (1)`);
      outside = count().then((n) => (order.push('outside'), n));
      await new Promise((resolve) => setImmediate(resolve)); // the outside statement is posted to the thread
      await tx.execute(sql`insert into thread_probe values (2), (3)`);
      order.push('committing');
    });
    assert.equal(await outside, 3, "it ran after the commit, not between the transaction's statements");
    assert.deepEqual(order, ['committing', 'outside']);
  });

  test('a failed transaction is rolled back whole, and its error keeps its SQLSTATE', async () => {
    await app.ctx.db.execute(sql`delete from thread_probe`);
    const failed = await app.ctx.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into thread_probe values (1)`);
        await tx.execute(sql`insert into thread_probe values (1)`);
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.equal(driverCode(failed), '23505');
    assert.equal(isDatabaseUnreachable(failed), false);
    assert.equal(await count(), 0);
  });

  test('a nested transaction rolls back to its savepoint only', async () => {
    await app.ctx.db.execute(sql`delete from thread_probe`);
    await app.ctx.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values (1)`);
      await tx
        .transaction(async (inner) => {
          await inner.execute(sql`insert into thread_probe values (2)`);
          throw new Error('inner fails');
        })
        .catch(() => {});
    });
    assert.deepEqual(await queryRows<{ n: number }>(app.ctx.db, sql`select n from thread_probe order by n`), [{ n: 1 }]);
  });

  // Last: it stops this file's database.
  test('the thread gone: requests answer 503 "database unreachable" at once, and /healthz still answers', async () => {
    const admin = await createAdmin(app.ctx.db, {});
    const { headers } = await createSessionKey(app.ctx.db, admin.id);
    assert.equal((await app.inject({ method: 'GET', url: '/api/v2/lists', headers })).statusCode, 200);

    // What a crash of the WebAssembly database looks like from here: its thread ends.
    await (app.ctx.db as unknown as { $client: { worker: Worker } }).$client.worker.terminate();
    const response = await app.inject({ method: 'GET', url: '/api/v2/lists', headers });
    assert.equal(response.statusCode, 503, response.body);
    assert.equal(response.headers['retry-after'], '5');
    assert.deepEqual(response.json(), { message: 'The database is unreachable: try again shortly.' });
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });
});
