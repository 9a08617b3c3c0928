import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createAdmin, createSessionKey, createSubscriber } from '../factories.js';
import { openTestDatabase, type TestDatabase } from '../db.js';
import { startSmtpSink, type SmtpSink } from '../smtp-sink.js';
import { uniqueEmail } from './compose-fixtures.js';
import { testKeys } from './dkim-fixtures.js';
import { sendableCampaign } from './send-fixtures.js';

/*
 * With DKIM keys configured, campaign mail from a domain no key signs goes out unsigned, and the log says so once per
 * domain (a warning), naming the domain and nothing of the mail.
 */

const logged: Record<string, unknown>[] = [];
let app: FastifyInstance;
let database: TestDatabase;
let sink: SmtpSink;
let dataDir: string;
before(async () => {
  database = await openTestDatabase();
  sink = await startSmtpSink();
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  const config = loadConfig(
    { PGLITE_MAX_WAIT_MS: '0', DATA_DIR: dataDir, SMTP_URL: sink.url, SEND_WORKER: 'off' },
    { dkim: testKeys('example.com') },
  );
  app = await buildApp({
    config,
    database: database.database,
    migrate: false,
    logger: { level: 'warn', stream: { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) } },
  });
  await app.ready();
});
after(async () => {
  await app.close();
  await database.drop();
  await sink.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a From domain without a key: one warning naming it, however many mails', async () => {
  const admin = await createAdmin(app.ctx.db);
  const { headers } = await createSessionKey(app.ctx.db, admin.id);
  const email = uniqueEmail();
  await createSubscriber(app.ctx.db, { email, confirmed: true });
  for (const fromField of ['News <news@example.net>', 'News <news@example.net>', 'News <news@example.com>']) {
    const campaign = await sendableCampaign(app.ctx.db, [], { fromField });
    const res = await app.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/test-send`, headers, payload: { emails: [email] } });
    assert.equal(res.statusCode, 200, res.body);
  }
  await sink.waitFor(3);
  const warnings = logged.filter((l) => l.level === 40).map((l) => ({ domain: l.domain, msg: l.msg }));
  assert.deepEqual(warnings, [{ domain: 'example.net', msg: 'no DKIM key for this From domain: its campaign mail goes out unsigned' }]);
});
