import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openTestDatabase } from '../db.js';
import { createAdmin, createSessionKey } from '../factories.js';
import { multipart } from '../messaging/multipart.js';
import { startSmtpSink } from '../smtp-sink.js';
import { entryArgs } from '../process.js';
import { listWithMembers, mailsOf, sendableCampaign } from './send-fixtures.js';

/*
 * Issue 17: two service processes on one PostgreSQL with different DATA_DIRs (two machines). The attachment is
 * uploaded to the first; the second, a worker process with an empty DATA_DIR of its own, sends the campaign, and
 * every mail carries the file. Both are configured as a real deployment is, by environment (DATABASE_URL set, no
 * ATTACHMENT_STORE), so the default store is what is under test.
 */

test(
  'a worker with another DATA_DIR sends a campaign whose attachment was uploaded elsewhere',
  { skip: !process.env.DATABASE_URL && 'needs PostgreSQL', timeout: 180_000 },
  async () => {
    const testDb = await openTestDatabase();
    const sink = await startSmtpSink();
    const apiDir = mkdtempSync(join(tmpdir(), 'mailroom-host-a-'));
    const workerDir = mkdtempSync(join(tmpdir(), 'mailroom-host-b-'));
    const config = loadConfig({
      PGLITE_MAX_WAIT_MS: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDb.url,
      DATA_DIR: apiDir,
      SMTP_URL: sink.url,
      SEND_WORKER: 'off',
    });
    const app = await buildApp({ config, database: testDb.database, migrate: false });
    const { headers } = await createSessionKey(testDb.database.db, (await createAdmin(testDb.database.db)).id);
    let child: ReturnType<typeof spawn> | null = null;
    try {
      const { list } = await listWithMembers(testDb.database.db, 20, { prefix: 'hosts' });
      const campaign = await sendableCampaign(testDb.database.db, [list.id]);
      const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 13) % 256));
      const form = multipart({}, [{ name: 'file', filename: 'catalogue.pdf', contentType: 'application/pdf', data }]);
      const uploaded = await app.inject({
        method: 'POST',
        url: `/api/v2/campaigns/${campaign.id}/attachments`,
        headers: { ...headers, ...form.headers },
        payload: form.payload,
      });
      assert.equal(uploaded.statusCode, 201, uploaded.body);
      assert.equal((await app.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers })).statusCode, 200);

      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: testDb.url,
        DATA_DIR: workerDir,
        SMTP_URL: sink.url,
        LOG_LEVEL: 'warn',
        SEND_POLL_MS: '50',
      };
      delete env.ATTACHMENT_STORE;
      child = spawn(process.execPath, entryArgs('worker'), { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));

      const deadline = Date.now() + 120_000;
      let status = '';
      while (status !== 'sent') {
        status = (await app.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}`, headers })).json().message_metadata.status;
        assert.notEqual(status, 'suspended', `the worker suspended the campaign: ${stderr}`);
        assert.ok(Date.now() < deadline, `campaign still ${status}; worker stderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const mails = mailsOf(sink, campaign.id);
      assert.equal(mails.length, 20);
      for (const mail of mails) {
        assert.deepEqual(
          mail.parsed.attachments.map((a) => [a.filename, a.contentType, a.content.equals(data)]),
          [['catalogue.pdf', 'application/pdf', true]],
        );
      }
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await app.close();
      await testDb.drop();
      await sink.close();
      rmSync(apiDir, { recursive: true, force: true });
      rmSync(workerDir, { recursive: true, force: true });
    }
  },
);
