import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../src/context.js';
import { createDatabase } from '../../src/db/client.js';
import { createTransport, type Transport } from '../../src/sending/transport.js';
import { startWorker } from '../../src/sending/worker.js';
import { createList } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { entryArgs } from '../process.js';
import { deliveryRows, mailsOf, sendableCampaign, statusCounts } from './send-fixtures.js';

/*
 * Several workers against one PostgreSQL: two in this process on separate connection pools, and `npm run worker`
 * as a process of its own. PGlite is one connection inside one process, so there is nothing to race there.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const skip = onPostgres ? false : 'needs PostgreSQL: PGlite cannot be shared by two connection pools or processes';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

/** A list of `count` confirmed members made in two statements. */
async function bigList(prefix: string, count: number) {
  const list = await createList(t.db);
  await t.db.execute(sql`
    insert into subscribers (email, unique_id, confirmed)
    select ${prefix} || '-' || g || '@example.com', md5(${prefix} || g), true from generate_series(1, ${count}) g`);
  await t.db.execute(sql`
    insert into subscriptions (list_id, subscriber_id)
    select ${list.id}, id from subscribers where email like ${`${prefix}-%`}`);
  return list;
}

async function waitForStatus(id: number, status: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}`, headers });
    if (res.json().message_metadata.status === status) return;
    if (Date.now() > deadline) throw new Error(`campaign ${id} still ${res.json().message_metadata.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assertExactlyOnce(campaignId: number, expected: number) {
  const mails = mailsOf(t.smtp, campaignId);
  const byDelivery = new Map<string, number>();
  for (const m of mails) {
    const id = String(m.parsed.headers.get('x-mailroom-delivery'));
    byDelivery.set(id, (byDelivery.get(id) ?? 0) + 1);
  }
  const duplicates = [...byDelivery].filter(([, n]) => n > 1);
  assert.deepEqual(duplicates, [], 'no delivery sent twice');
  assert.equal(new Set(mails.flatMap((m) => m.envelope.to)).size, expected, 'every recipient once');
  assert.equal(mails.length, expected);
}

describe('several workers on one database', { skip }, () => {
  test('two workers on separate pools share a campaign: zero duplicates, zero skipped', async () => {
    const list = await bigList('pair', 1500);
    const c = await sendableCampaign(t.db, [list.id]);
    assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers })).statusCode, 200);

    const second = await createDatabase({ databaseUrl: t.databaseUrl, poolSize: 5 });
    const transport = createTransport(t.config);
    let sentBySecond = 0;
    const counting: Transport = {
      kind: transport.kind,
      send: async (message) => {
        const result = await transport.send(message);
        sentBySecond++;
        return result;
      },
      close: () => transport.close(),
    };
    const otherCtx: AppContext = { ...t.ctx, db: second.db, transport: counting };
    const options = { pollMs: 20, batchSize: 50, lanes: 2 } as const;
    const one = startWorker(t.ctx, { ...options, workerId: 'worker-one' });
    const two = startWorker(otherCtx, { ...options, workerId: 'worker-two' });
    try {
      await waitForStatus(c.id, 'sent');
    } finally {
      await Promise.all([one.stop(), two.stop()]);
      await transport.close();
      await second.close();
    }
    assertExactlyOnce(c.id, 1500);
    assert.deepEqual(await statusCounts(t.db, c.id), { sent: 1500 });
    const rows = await deliveryRows(t.db, c.id);
    assert.equal(rows.filter((r) => r.attempts === 1).length, 1500);
    assert.ok(sentBySecond > 0 && sentBySecond < 1500, `both workers took part (second sent ${sentBySecond})`);
  });

  test('npm run worker: a process of its own sends the campaign and stops cleanly on SIGTERM', async () => {
    const list = await bigList('proc', 200);
    const c = await sendableCampaign(t.db, [list.id]);
    await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers });
    const child = spawn(process.execPath, entryArgs('worker'), {
      env: {
        ...process.env,
        DATABASE_URL: t.databaseUrl,
        SMTP_URL: t.smtp.url,
        DATA_DIR: t.config.dataDir,
        LOG_LEVEL: 'warn',
        SEND_POLL_MS: '50',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitForStatus(c.id, 'sent', 120_000);
    } catch (err) {
      throw new Error(`${(err as Error).message}; worker stderr: ${stderr}`);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, stderr);
    assertExactlyOnce(c.id, 200);
  });
});
