import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asc, eq, inArray } from 'drizzle-orm';
import { mailQueue, subscribers } from '../../src/db/schema/index.js';
import { startMailQueue, stopMailQueues, type MailQueueDrainer } from '../../src/mail/index.js';
import { createList } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { multipart, type FormPart } from '../multipart.js';

/*
 * An import's confirmation requests are queued by reference (a row names the subscriber) and rendered when the
 * drainer sends them: the mail is the one sent before (subject, text, html, link), a subscriber confirmed,
 * blacklisted, deleted or whose address became unusable in between gets nothing, and a retried mail keeps its
 * Message-ID. The drainer here is driven by hand (`runOnce`), so "between the import and the drain" is exact.
 */

const PUBLIC_URL = 'https://lists.example.org';
const SUBJECT = 'Please confirm your subscription';

let t: TestApp;
let headers: Record<string, string>;
let drainer: MailQueueDrainer;
before(async () => {
  t = await startTestApp({ publicUrl: PUBLIC_URL, mailQueue: { pollMs: 60_000, retryMs: 100, giveUpSeconds: 3600, leaseSeconds: 600 } });
  // The app's own drainer would send at once: this file drains when it chooses.
  await stopMailQueues(t.ctx);
  drainer = startMailQueue(t.ctx, { loop: false });
  headers = (await t.adminWithSession()).headers;
});
after(async () => {
  await t.close();
});
beforeEach(async () => {
  // Each test starts from an empty queue and reads only the mails it caused.
  await drainer.runOnce();
  t.smtp.messages.length = 0;
});

function upload(csv: string, fields: Record<string, string>) {
  const parts: FormPart[] = Object.entries(fields).map(([name, value]) => ({ name, value }));
  parts.push({ name: 'file', filename: 'subscribers.csv', content: csv, contentType: 'text/csv' });
  const body = multipart(parts);
  return t.inject({ method: 'POST', url: '/api/v2/subscribers/import', headers: { ...headers, ...body.headers }, payload: body.payload });
}

async function importUnconfirmed(emails: readonly string[], htmlEmail = '0') {
  const list = await createList(t.db);
  const csv = `email,confirmed,html_email\n${emails.map((e) => `${e},0,${htmlEmail}`).join('\n')}\n`;
  const res = await upload(csv, { list_id: String(list.id), send_confirmation: 'true' });
  assert.equal(res.statusCode, 200, res.body);
  const rows = await t.db
    .select()
    .from(subscribers)
    .where(inArray(subscribers.email, [...emails]))
    .orderBy(asc(subscribers.id));
  return new Map(rows.map((r) => [r.email, r]));
}

function expectedText(uniqueId: string, signature = ''): string {
  const link = `${PUBLIC_URL}/api/v2/subscribers/confirm?uniqueId=${uniqueId}`;
  const text = [
    'Hello,',
    '',
    'Please confirm your subscription by opening this link:',
    '',
    link,
    '',
    'If you did not ask to subscribe, ignore this message and nothing more will be sent.',
  ].join('\n');
  return signature ? `${text}\n\n-- \n${signature}` : text;
}

function expectedHtml(uniqueId: string, signature = ''): string {
  const link = `${PUBLIC_URL}/api/v2/subscribers/confirm?uniqueId=${uniqueId}`;
  const html =
    '<p>Hello,</p><p>Please confirm your subscription by opening this link:</p>' +
    `<p><a href="${link}">${link}</a></p>` +
    '<p>If you did not ask to subscribe, ignore this message and nothing more will be sent.</p>';
  return signature ? `${html}<p>— ${signature}</p>` : html;
}

/** The sink's mail to `address`; fails unless there is exactly one. */
function mailTo(address: string) {
  const mails = t.smtp.messages.filter((m) => m.envelope.to.join(',') === address);
  assert.equal(mails.length, 1, `one mail to ${address}, got ${mails.length}`);
  return mails[0]!;
}

/** The text part as written (the parser gives the wire's line ends and a final one the text may not have had). */
const textOf = (mail: ReturnType<typeof mailTo>) => (mail.parsed.text ?? '').replace(/\r\n/g, '\n').trimEnd();

describe('confirmation requests queued by reference', () => {
  test('the import writes one small row per new unconfirmed subscriber; the drain sends each the same mail as before', async () => {
    const plain = await importUnconfirmed(['ref-plain-1@example.net', 'ref-plain-2@example.net']);
    const html = await importUnconfirmed(['ref-html@example.net'], '1');
    const people = [...plain.values(), ...html.values()];

    // What waits is a reference, not a rendered mail: the subscriber's id and the Message-ID chosen now.
    const rows = await t.db.select().from(mailQueue).orderBy(asc(mailQueue.id));
    assert.deepEqual(
      rows.map((r) => ({ kind: r.kind, message: r.message })),
      people.map((p, i) => ({ kind: 'confirmation', message: { ref: p.id, messageId: (rows[i]!.message as { messageId: string }).messageId } })),
    );
    for (const row of rows) assert.match((row.message as { messageId: string }).messageId, /^<[0-9a-f-]{36}@localhost>$/);

    assert.equal(await drainer.runOnce(), 3);
    assert.equal(t.smtp.messages.length, 3);
    for (const [i, person] of people.entries()) {
      const mail = mailTo(person.email);
      assert.equal(mail.parsed.subject, SUBJECT);
      assert.equal(textOf(mail), expectedText(person.uniqueId));
      // html_email decides whether there is an HTML part, as it did when the mail was rendered at import.
      assert.equal(mail.parsed.html, person.htmlEmail ? expectedHtml(person.uniqueId) : false);
      assert.equal(mail.parsed.messageId, (rows[i]!.message as { messageId: string }).messageId);
    }
    assert.equal((await t.db.select().from(mailQueue)).length, 0, 'sent mail leaves the queue');
  });

  test("the organisation's name signs the mail off, as it signs every system mail", async () => {
    const patch = (name: string) => t.inject({ method: 'PATCH', url: '/api/v2/settings', headers, payload: { organisation_name: name } });
    assert.equal((await patch('Garden Club')).statusCode, 200);
    try {
      const person = (await importUnconfirmed(['ref-signed@example.net'], '1')).get('ref-signed@example.net')!;
      await drainer.runOnce();
      const mail = mailTo(person.email);
      assert.equal(textOf(mail), expectedText(person.uniqueId, 'Garden Club'));
      assert.equal(mail.parsed.html, expectedHtml(person.uniqueId, 'Garden Club'));
    } finally {
      assert.equal((await patch('')).statusCode, 200);
    }
  });

  test('confirmed, blacklisted (flag or entry), deleted or made unusable between the import and the drain: nothing is sent', async () => {
    const emails = [
      'ref-confirms@example.net',
      'ref-flagged@example.net',
      'ref-entry@example.net',
      'ref-deleted@example.net',
      'ref-broken@example.net',
      'ref-waits@example.net',
    ];
    const people = await importUnconfirmed(emails);
    const person = (email: string) => people.get(email)!;

    // Confirmed by the link of another mail (a sign-up's), blacklisted two ways, deleted, address made unusable.
    const confirmed = await t.inject({ method: 'GET', url: `/api/v2/subscribers/confirm?uniqueId=${person('ref-confirms@example.net').uniqueId}` });
    assert.equal(confirmed.statusCode, 200);
    const flagged = await t.inject({
      method: 'PUT',
      url: `/api/v2/subscribers/${person('ref-flagged@example.net').id}`,
      headers,
      payload: { email: 'ref-flagged@example.net', blacklisted: true },
    });
    assert.equal(flagged.statusCode, 200, flagged.body);
    const entry = await t.inject({ method: 'POST', url: '/api/v2/blacklist/add', headers, payload: { email: 'REF-ENTRY@example.net' } });
    assert.ok(entry.statusCode < 300, entry.body);
    // The entry alone, without the subscriber's flag (as a flag cleared elsewhere would leave it): still blacklisted.
    await t.db
      .update(subscribers)
      .set({ blacklisted: false })
      .where(eq(subscribers.id, person('ref-entry@example.net').id));
    const deleted = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${person('ref-deleted@example.net').id}`, headers });
    assert.equal(deleted.statusCode, 204, deleted.body);
    // What an import stores for an address that must not be reached.
    await t.db
      .update(subscribers)
      .set({ email: 'invalid_ref-broken@example' })
      .where(eq(subscribers.id, person('ref-broken@example.net').id));

    assert.equal(await drainer.runOnce(), 6, 'every row is taken');
    assert.deepEqual(
      t.smtp.messages.map((m) => m.envelope.to),
      [['ref-waits@example.net']],
    );
    assert.equal(textOf(mailTo('ref-waits@example.net')), expectedText(person('ref-waits@example.net').uniqueId));
    assert.equal((await t.db.select().from(mailQueue)).length, 0, 'the dropped rows leave the queue too');
  });

  test('a mail server that fails, then recovers: delivered once, with the Message-ID queued at import', async () => {
    const person = (await importUnconfirmed(['ref-retry@example.net'])).get('ref-retry@example.net')!;
    const [queued] = await t.db.select().from(mailQueue);
    const messageId = (queued!.message as { messageId: string }).messageId;

    t.smtp.failNext(1, 451, 'Try again later');
    assert.equal(await drainer.runOnce(), 1);
    assert.equal(t.smtp.messages.length, 0);
    const [waiting] = await t.db.select().from(mailQueue);
    assert.equal(waiting!.attempts, 1);
    assert.match(waiting!.lastError ?? '', /451/);
    assert.deepEqual(waiting!.message, { ref: person.id, messageId }, 'the row still names the subscriber and the same Message-ID');

    // Due again after the back-off (100 ms here).
    const deadline = Date.now() + 5000;
    while (t.smtp.messages.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      await drainer.runOnce();
    }
    const mail = mailTo(person.email);
    assert.equal(mail.parsed.messageId, messageId);
    assert.equal(mail.parsed.subject, SUBJECT);
    assert.equal(textOf(mail), expectedText(person.uniqueId));
    assert.equal((await t.db.select().from(mailQueue)).length, 0);
    await drainer.runOnce();
    assert.equal(t.smtp.messages.length, 1, 'delivered once');
  });

  test('POST /subscribers with request_confirmation queues by reference too, and the drain sends the same mail', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers,
      payload: { email: 'ref-single@example.net', request_confirmation: true, html_email: true },
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json() as { id: number; unique_id: string };
    const [row] = await t.db.select().from(mailQueue);
    assert.deepEqual(row!.message, { ref: created.id, messageId: (row!.message as { messageId: string }).messageId });
    await drainer.runOnce();
    const mail = mailTo('ref-single@example.net');
    assert.equal(mail.parsed.subject, SUBJECT);
    assert.equal(textOf(mail), expectedText(created.unique_id));
    assert.equal(mail.parsed.html, expectedHtml(created.unique_id));
  });
});
