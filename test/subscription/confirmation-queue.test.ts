import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asc, inArray } from 'drizzle-orm';
import { mailQueue, subscribers } from '../../src/db/schema/index.js';
import { closedPort, startSmtpSink, type SmtpSink } from '../smtp-sink.js';
import { mailQueueDrained, startTestApp, type TestApp } from '../helper.js';
import { multipart, type FormPart } from '../multipart.js';
import { createList } from '../factories.js';

/*
 * An administrator's confirmation requests go through the system-mail queue (issue 22): `POST /subscribers` with
 * `request_confirmation` and an import's confirmations, each written with the subscribers it is about. With the mail
 * server down both answer at once; once it is back each subscriber gets exactly one mail. A refused import queues
 * nothing.
 */

let t: TestApp;
let port: number;
let sink: SmtpSink | null = null;
let headers: Record<string, string>;
before(async () => {
  port = await closedPort();
  t = await startTestApp({
    publicUrl: 'https://lists.example.org',
    smtpUrl: `smtp://127.0.0.1:${port}/?tls=off`,
    mailQueue: { pollMs: 50, retryMs: 100, giveUpSeconds: 3600, leaseSeconds: 600 },
  });
  headers = (await t.adminWithSession()).headers;
});
after(async () => {
  await t.close();
  await sink?.close();
});

function upload(csv: string, fields: Record<string, string>) {
  const parts: FormPart[] = Object.entries(fields).map(([name, value]) => ({ name, value }));
  parts.push({ name: 'file', filename: 'subscribers.csv', content: csv, contentType: 'text/csv' });
  const body = multipart(parts);
  return t.inject({ method: 'POST', url: '/api/v2/subscribers/import', headers: { ...headers, ...body.headers }, payload: body.payload });
}

const queuedKinds = async () => (await t.db.select({ kind: mailQueue.kind }).from(mailQueue)).map((r) => r.kind);

describe('confirmation requests through the mail queue', () => {
  test('a refused import (malformed after a full batch) queues nothing', async () => {
    const list = await createList(t.db);
    const rows = Array.from({ length: 1100 }, (_, i) => `refused-${i}@example.net`).join('\n');
    const res = await upload(`email\n${rows}\nbad@example.net,"open\n`, { list_id: String(list.id) });
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(await queuedKinds(), []);
  });

  test('with the mail server down: the create and the import answer at once; once it is back, one mail each', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers,
      payload: { email: 'single@example.net', request_confirmation: true },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().confirmed, false);

    const list = await createList(t.db);
    const csv = 'email,confirmed\nfirst@example.net,0\nsecond@example.net,0\nalready@example.net,1\nfirst@example.net,0\n';
    const imported = await upload(csv, { list_id: String(list.id) });
    assert.equal(imported.statusCode, 200, imported.body);
    assert.equal(imported.json().imported, 3);

    // Nothing could be sent yet: three confirmations wait (the duplicate row and the confirmed one add none).
    assert.deepEqual(await queuedKinds(), ['confirmation', 'confirmation', 'confirmation']);

    sink = await startSmtpSink(port);
    await sink.waitFor(3, 15_000);
    await mailQueueDrained(t);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(sink.messages.length, 3, 'exactly one mail per unconfirmed subscriber');

    const people = await t.db
      .select()
      .from(subscribers)
      .where(inArray(subscribers.email, ['single@example.net', 'first@example.net', 'second@example.net']))
      .orderBy(asc(subscribers.email));
    const byAddress = new Map(sink.messages.map((m) => [m.envelope.to.join(','), m]));
    assert.deepEqual([...byAddress.keys()].sort(), ['first@example.net', 'second@example.net', 'single@example.net']);
    for (const person of people) {
      const mail = byAddress.get(person.email)!;
      assert.equal(mail.parsed.subject, 'Please confirm your subscription');
      assert.ok(
        (mail.parsed.text ?? '').includes(`https://lists.example.org/api/v2/subscribers/confirm?uniqueId=${person.uniqueId}`),
        mail.parsed.text,
      );
    }
  });
});
