import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { createMailer } from '../src/mail/mailer.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

const message = {
  to: 'Jane Reader <jane@example.com>',
  subject: 'Grüße from Mailroom',
  text: 'Plain text body',
  html: '<p>HTML <b>body</b></p>',
  headers: { 'List-Unsubscribe': '<https://lists.example.com/u/abc>' },
};

describe('createMailer with SMTP', () => {
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
  });
  after(() => smtp.close());

  test('delivers to the server and the message parses back', async () => {
    const mailer = createMailer({ smtpUrl: smtp.url, mailFrom: 'Mailroom <noreply@example.com>', dataDir: '/nonexistent' });
    try {
      assert.equal(mailer.kind, 'smtp');
      const result = await mailer.send(message);
      assert.match(result.messageId, /^<.+@.+>$/);
      assert.match(result.response, /^250/);
      const [mail] = await smtp.waitFor(1);
      assert.deepEqual(mail!.envelope, { from: 'noreply@example.com', to: ['jane@example.com'] });
      const parsed = mail!.parsed;
      assert.equal(parsed.subject, 'Grüße from Mailroom');
      assert.deepEqual(parsed.from?.value, [{ name: 'Mailroom', address: 'noreply@example.com' }]);
      assert.equal(parsed.text?.trim(), 'Plain text body');
      assert.equal(parsed.html, '<p>HTML <b>body</b></p>');
      assert.equal(parsed.messageId, result.messageId);
      assert.match(mail!.raw.toString(), /List-Unsubscribe: <https:\/\/lists\.example\.com\/u\/abc>/);
    } finally {
      await mailer.close();
    }
  });

  test('a rejected recipient is an error', async () => {
    const mailer = createMailer({ smtpUrl: smtp.url, mailFrom: 'noreply@example.com', dataDir: '/nonexistent' });
    try {
      smtp.failNext(1, 550, 'No such user');
      await assert.rejects(() => mailer.send({ ...message, to: 'gone@example.com' }), /550/);
    } finally {
      await mailer.close();
    }
  });
});

describe('createMailer without SMTP', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-mail-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('writes a parseable .eml file under DATA_DIR/outbox', async () => {
    const mailer = createMailer({ smtpUrl: '', mailFrom: 'Mailroom <noreply@example.com>', dataDir });
    assert.equal(mailer.kind, 'outbox');
    const first = await mailer.send(message);
    await mailer.send({ ...message, subject: 'Second' });
    await mailer.close();
    const files = readdirSync(join(dataDir, 'outbox')).sort();
    assert.equal(files.length, 2);
    for (const file of files) assert.match(file, /\.eml$/);
    const file = files.map((f) => join(dataDir, 'outbox', f)).find((f) => first.response.endsWith(f));
    assert.ok(file, `${first.response} names the written file`);
    const raw = readFileSync(file);
    assert.doesNotMatch(raw.toString(), /[^\r]\n/, 'RFC 5322 line endings (CRLF) only');
    const parsed = await simpleParser(raw);
    assert.equal(parsed.subject, 'Grüße from Mailroom');
    assert.deepEqual(parsed.from?.value, [{ name: 'Mailroom', address: 'noreply@example.com' }]);
    assert.deepEqual(
      (Array.isArray(parsed.to) ? parsed.to : [parsed.to]).flatMap((a) => a?.value.map((v) => v.address)),
      ['jane@example.com'],
    );
    assert.equal(parsed.text?.trim(), 'Plain text body');
    assert.equal(parsed.html, '<p>HTML <b>body</b></p>');
    assert.equal(parsed.messageId, first.messageId);
  });
});
