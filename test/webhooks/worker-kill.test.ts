import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { startTestApp, type TestApp } from '../helper.js';
import { startEntry, exitWithin, stop, type Running } from '../process.js';
import { startReceiver, until, verify, type Receiver } from './receiver.js';

/*
 * `npm run worker` killed with SIGKILL while posting: nothing is lost. A second worker takes the deliveries up once
 * their lease has ended (here the lease's end is brought forward in the database instead of waited for), and the
 * receiver ends with every event. PostgreSQL only: on PGlite the sender runs inside the service's own process.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
let t: TestApp;
let receiver: Receiver;
let tmp: string;
const children: Running[] = [];
before(async () => {
  if (!onPostgres) return;
  t = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
  tmp = mkdtempSync(join(tmpdir(), 'mailroom-webhook-kill-'));
});
after(async () => {
  if (!onPostgres) return;
  for (const running of children) if (running.child.exitCode === null) running.child.kill('SIGKILL');
  await receiver.close();
  await t.close();
  rmSync(tmp, { recursive: true, force: true });
});

const worker = () => {
  const running = startEntry('worker', {
    DATABASE_URL: t.databaseUrl,
    DATA_DIR: tmp,
    SMTP_URL: t.smtp.url,
    WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'info',
  });
  children.push(running);
  return running;
};

test('a worker killed with SIGKILL mid-delivery loses no event', { skip: !onPostgres && 'PostgreSQL only' }, async () => {
  const { headers } = await t.adminWithSession();
  const created = await t.inject({
    method: 'POST',
    url: '/api/v2/webhooks',
    headers,
    payload: { url: receiver.url, events: ['subscriber.created'] },
  });
  assert.equal(created.statusCode, 201, created.body);
  const secret: string = created.json().secret;
  const emails: string[] = [];
  for (let i = 0; i < 30; i++) {
    const email = `killed-${i}@example.com`;
    emails.push(email);
    const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email } });
    assert.equal(res.statusCode, 201, res.body);
  }

  // The receiver takes the requests and never answers: the worker is killed with its batch in flight.
  receiver.mode = 'hang';
  const first = worker();
  await until(() => receiver.hanging >= 10, 60_000, 'requests in flight');
  first.child.kill('SIGKILL');
  assert.equal((await exitWithin(first, 10_000)).signal, 'SIGKILL');

  // Time passes: the dead worker's leases end.
  await t.db.execute(sql`update webhook_deliveries set next_attempt_at = now() where status = 'pending'`);
  receiver.mode = 'ok';
  const second = worker();
  await until(
    async () => {
      const [n] = await queryRows(t.db, sql`select count(*)::int as n from webhook_deliveries where status = 'delivered'`, (r) => Number(r['n']));
      return n === 30;
    },
    60_000,
    'every delivery delivered',
  );
  await stop(second);

  const ok = receiver.received.filter((m) => m.mode === 'ok');
  assert.ok(ok.every((m) => verify(secret, m)));
  const got = new Set(ok.map((m) => JSON.parse(m.body).data.subscriber.email));
  assert.deepEqual([...got].sort(), [...emails].sort());
  // At least once: those in flight when killed came again with the same webhook-id.
  const hungIds = new Set(receiver.received.filter((m) => m.mode === 'hang').map((m) => m.id));
  assert.ok([...hungIds].every((id) => ok.some((m) => m.id === id)));
});
