import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { startMailQueue } from '../../src/mail/index.js';
import { loadConfig } from '../../src/config.js';
import { serializeError } from '../../src/shared/log.js';
import { openTestDatabase, type TestDatabase } from '../db.js';
import { createAdmin, createList, createSessionKey, createSubscriber } from '../factories.js';
import { startSmtpSink, type SmtpSink } from '../smtp-sink.js';

/*
 * What a refused confirmation mail leaves in the log: this file's app logs (at warn, with the service's error
 * serializer) into a buffer the test reads.
 */

let app: FastifyInstance;
let testDb: TestDatabase;
let smtp: SmtpSink;
let dataDir: string;
const lines: string[] = [];
before(async () => {
  testDb = await openTestDatabase();
  smtp = await startSmtpSink();
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  const config = loadConfig({ PGLITE_MAX_WAIT_MS: '0', LOG_LEVEL: 'warn', DATA_DIR: dataDir, SMTP_URL: smtp.url, SEND_WORKER: 'off' });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await buildApp({
    config,
    database: testDb.database,
    migrate: false,
    logger: { level: 'warn', stream, serializers: { err: serializeError } },
  });
  await app.ready();
  // The process's drainer of the system-mail queue, as in a sending process.
  startMailQueue(app.ctx);
});
after(async () => {
  await app.close();
  await testDb.drop();
  await smtp.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a refused confirmation mail (list members) is given up and logged by queue row and kind, the address masked', async () => {
  const admin = await createAdmin(app.ctx.db);
  const { headers } = await createSessionKey(app.ctx.db, admin.id);
  const list = await createList(app.ctx.db);
  const subscriber = await createSubscriber(app.ctx.db, { email: 'jane.doe@example.org', confirmed: false });
  smtp.failNext(1, 550, '5.1.1 <jane.doe@example.org>: Recipient address rejected');
  const res = await app.inject({
    method: 'POST',
    url: `/api/v2/lists/${list.id}/subscribers`,
    headers,
    payload: { emails: ['jane.doe@example.org'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  // The mail leaves after the answer (mail/mail-queue.ts): a 5xx refusal is given up at once, and logged.
  const givenUp = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.msg === 'queued mail given up');
  for (let i = 0; i < 200 && givenUp().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  const logged = givenUp();
  assert.equal(logged.length, 1, lines.join('\n'));
  assert.equal(logged[0]!.kind, 'confirmation');
  assert.equal(logged[0]!.attempts, 1);
  assert.equal(typeof logged[0]!.mailId, 'number');
  assert.ok(subscriber.id > 0);
  assert.deepEqual(logged[0]!.failure, {
    code: 'EENVELOPE',
    responseCode: 550,
    message: "Can't send mail - all recipients were rejected: 550 5.1.1 <j***@example.org>: Recipient address rejected",
  });
  assert.doesNotMatch(lines.join('\n'), /jane\.doe/);
});
