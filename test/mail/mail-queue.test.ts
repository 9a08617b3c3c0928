import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { mailQueue } from '../../src/db/schema/index.js';
import { closedPort, startSmtpSink, type SmtpSink } from '../smtp-sink.js';
import { queuedMailRetried, startTestApp, type TestApp } from '../helper.js';
import { createPage } from '../public/fixtures.js';
import { createList } from '../factories.js';

/*
 * System mail leaves after the answer, through the queue (issue 22): a sign-up while the mail server is down still
 * gets its confirmation once the server is back, exactly once; a mail the server refuses for good is given up.
 */

let t: TestApp;
let port: number;
let sink: SmtpSink | null = null;
before(async () => {
  port = await closedPort();
  // Nobody listens on SMTP_URL's port yet: the mail server is down. Retries are shortened (100 ms, doubling).
  t = await startTestApp({
    smtpUrl: `smtp://127.0.0.1:${port}/?tls=off`,
    mailQueue: { pollMs: 50, retryMs: 100, giveUpSeconds: 3600, leaseSeconds: 600 },
  });
});
after(async () => {
  await t.close();
  await sink?.close();
});

const queued = async () => (await t.db.select().from(mailQueue)).length;

async function signUp(email: string, remoteAddress: string) {
  const list = await createList(t.db, { name: `Queue ${email}`, isPublic: true });
  const page = await createPage(t.db, 'Queue page', { lists: String(list.id) });
  return t.inject({ method: 'POST', url: `/api/v2/public/subscribe-pages/${page.id}`, remoteAddress, payload: { email, list_id: list.id } });
}

describe('the system-mail queue', () => {
  test('a sign-up while the mail server is down: 204 at once, its confirmation arrives once the server is back, once', async () => {
    const res = await signUp('outage@example.com', '192.0.2.60');
    assert.equal(res.statusCode, 204, res.body);
    // Attempts fail and are retried while nothing listens.
    await queuedMailRetried(t, 'confirmation', 'outage@example.com');
    // The server comes back on the same port.
    sink = await startSmtpSink(port);
    const [mail] = await sink.waitFor(1, 15_000);
    assert.deepEqual(mail!.envelope.to, ['outage@example.com']);
    assert.equal(mail!.parsed.subject, 'Please confirm your subscription');
    assert.match(mail!.parsed.text ?? '', /\/api\/v2\/subscribers\/confirm\?uniqueId=[0-9a-f]{32}&page=\d+/);
    assert.match(mail!.parsed.messageId ?? '', /^<[0-9a-f-]{36}@localhost>$/);
    for (let i = 0; i < 20 && (await queued()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await queued(), 0, 'a sent mail leaves the queue');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sink.messages.length, 1, 'delivered once');
  });

  test('a mail the server refuses for good (5xx) is given up at once: not retried, not kept', async () => {
    assert.ok(sink, 'the previous test started the sink');
    sink.failNext(1, 550, 'No such mailbox here');
    const before = sink.messages.length;
    const res = await signUp('refused@example.com', '192.0.2.61');
    assert.equal(res.statusCode, 204);
    for (let i = 0; i < 100 && (await queued()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await queued(), 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(sink.messages.length, before);
  });

  test('a mail still failing when its give-up time has passed is given up', async () => {
    assert.ok(sink);
    sink.failNext(1000, 451, 'Try later');
    const before = sink.messages.length;
    const res = await signUp('late@example.com', '192.0.2.62');
    assert.equal(res.statusCode, 204);
    // Its give-up time, moved into the past (as if two days of retries had gone by).
    await t.db.execute(sql`update mail_queue set give_up_at = now() - interval '1 second'`);
    for (let i = 0; i < 100 && (await queued()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await queued(), 0);
    sink.failNext(0, 451);
    assert.equal(sink.messages.length, before);
  });
});
