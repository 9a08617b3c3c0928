import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { NotFoundError } from '../../src/shared/errors.js';
import { serializeError } from '../../src/shared/log.js';
import { openTestDatabase, type TestDatabase } from '../db.js';

/*
 * The one error handler (src/plugins/error-handler.ts): only typed errors speak to the client; any other error is a
 * 500 with a generic message and the request id, and its own words go to the log. The failing routes are added to the
 * service for this file only: no route of the service fails like this on purpose.
 */

let app: FastifyInstance;
let testDb: TestDatabase;
let dataDir: string;
const lines: Record<string, unknown>[] = [];

const SECRET = 'cannot open /var/lib/mailroom/secret.key for jane@example.com';

before(async () => {
  testDb = await openTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-errors-'));
  const config = loadConfig({ PGLITE_MAX_WAIT_MS: '0', LOG_LEVEL: 'info', DATA_DIR: dataDir, SEND_WORKER: 'off' });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  app = await buildApp({
    config,
    database: testDb.database,
    migrate: false,
    logger: { level: 'info', stream, serializers: { err: serializeError } },
  });
  app.get('/test-errors/plain', async () => {
    throw new Error(SECRET);
  });
  app.get('/test-errors/type', async () => {
    throw new TypeError(SECRET);
  });
  app.get('/test-errors/status-500', async () => {
    throw Object.assign(new Error(SECRET), { statusCode: 500 });
  });
  app.get('/test-errors/typed', async () => {
    throw new NotFoundError('Campaign not found.');
  });
  await app.ready();
});

after(async () => {
  await app?.close();
  await testDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('error handler', () => {
  for (const kind of ['plain', 'type', 'status-500']) {
    test(`an unexpected error (${kind}) answers 500 with a generic message and is logged with its own`, async () => {
      const res = await app.inject({ method: 'GET', url: `/test-errors/${kind}`, headers: { 'x-request-id': `errors-${kind}` } });
      assert.equal(res.statusCode, 500);
      assert.deepEqual(res.json(), { message: `Internal server error (request errors-${kind})` });
      assert.doesNotMatch(res.body, /secret|jane|\/var/);
      const logged = lines.find((line) => line.reqId === `errors-${kind}` && line.msg === 'unhandled error');
      assert.ok(logged, 'the error is logged');
      assert.equal(logged.level, 50);
      assert.equal((logged.err as { message?: string }).message, SECRET);
    });
  }

  test('a typed error keeps its status and message', async () => {
    const res = await app.inject({ method: 'GET', url: '/test-errors/typed' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { message: 'Campaign not found.' });
  });
});
