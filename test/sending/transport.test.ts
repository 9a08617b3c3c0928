import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createMailer } from '../../src/mail/mailer.js';
import { createTransport, SendFailure, type RawMessage } from '../../src/sending/transport.js';
import { closedPort, startSmtpSink, type SmtpSink } from '../smtp-sink.js';

/*
 * The campaign transport: finished bytes to SMTP (several servers round-robin) or to the outbox, and what a refusal
 * means for the delivery.
 */

function message(n: number, to = `reader${n}@example.com`): RawMessage {
  const raw = Buffer.from(
    [
      'From: News <news@example.com>',
      `To: ${to}`,
      `Subject: Message ${n}`,
      `Message-ID: <m${n}.test@example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Body ${n}`,
      '.leading dot survives',
      '',
    ].join('\r\n'),
  );
  return { from: 'bounces@example.com', to, raw: [raw] };
}

describe('SMTP', () => {
  let one: SmtpSink;
  let two: SmtpSink;
  before(async () => {
    one = await startSmtpSink();
    two = await startSmtpSink();
  });
  after(async () => {
    await one.close();
    await two.close();
  });

  test('the bytes arrive as built, with the given envelope', async () => {
    const transport = createTransport({ smtpUrl: one.url, dataDir: '/nonexistent' });
    try {
      assert.equal(transport.kind, 'smtp');
      const sent = message(1);
      const result = await transport.send(sent);
      assert.match(result.response, /^250/);
      const [mail] = await one.waitFor(1);
      assert.deepEqual(mail!.envelope, { from: 'bounces@example.com', to: ['reader1@example.com'] });
      assert.equal(mail!.raw.toString(), Buffer.concat(sent.raw).toString());
      assert.equal(mail!.parsed.text, 'Body 1\n.leading dot survives\n');
    } finally {
      await transport.close();
    }
  });

  test('several servers in SMTP_URL: messages go round-robin, one pool each', async () => {
    const config = loadConfig({ SMTP_URL: `${one.url}, ${two.url}`, DATA_DIR: '/nonexistent' });
    const transport = createTransport(config);
    const firstBefore = one.messages.length;
    const secondBefore = two.messages.length;
    try {
      for (let n = 10; n < 16; n++) await transport.send(message(n));
      await one.waitFor(firstBefore + 3);
      await two.waitFor(secondBefore + 3);
      assert.deepEqual(
        one.messages.slice(firstBefore).map((m) => m.parsed.subject),
        ['Message 10', 'Message 12', 'Message 14'],
      );
      assert.deepEqual(
        two.messages.slice(secondBefore).map((m) => m.parsed.subject),
        ['Message 11', 'Message 13', 'Message 15'],
      );
    } finally {
      await transport.close();
    }
  });

  test('system mail uses the first server of the list', async () => {
    const mailer = createMailer({ smtpUrl: `${two.url},${one.url}`, mailFrom: 'Mailroom <noreply@example.com>', dataDir: '/nonexistent' });
    const before = two.messages.length;
    try {
      await mailer.send({ to: 'admin@example.com', subject: 'System', text: 'x' });
      const mails = await two.waitFor(before + 1);
      assert.equal(mails[before]!.parsed.subject, 'System');
    } finally {
      await mailer.close();
    }
  });

  test('a 5xx refusal is a permanent SendFailure, a 4xx one temporary; both carry the reply', async () => {
    const transport = createTransport({ smtpUrl: one.url, dataDir: '/nonexistent' });
    try {
      one.failNext(1, 550, 'No such user here');
      const permanent = await transport.send(message(20)).then(
        () => assert.fail('should have failed'),
        (err: unknown) => err,
      );
      assert.ok(permanent instanceof SendFailure);
      assert.equal(permanent.permanent, true);
      assert.equal(permanent.response, '550 No such user here');

      one.failNext(1, 450, 'Mailbox busy, try later');
      const temporary = await transport.send(message(21)).then(
        () => assert.fail('should have failed'),
        (err: unknown) => err,
      );
      assert.ok(temporary instanceof SendFailure);
      assert.equal(temporary.permanent, false);
      assert.equal(temporary.response, '450 Mailbox busy, try later');

      // The pool goes on after refusals.
      assert.match((await transport.send(message(22))).response, /^250/);
    } finally {
      await transport.close();
    }
  });

  test('a server that cannot be reached is a temporary SendFailure', async () => {
    const transport = createTransport({ smtpUrl: `smtp://127.0.0.1:${await closedPort()}/?tls=off`, dataDir: '/nonexistent' });
    try {
      const err = await transport.send(message(30)).then(
        () => assert.fail('should have failed'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof SendFailure);
      assert.equal(err.permanent, false);
      assert.match(err.response, /ECONNREFUSED|connect/i);
    } finally {
      await transport.close();
    }
  });
});

describe('outbox', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-transport-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('without SMTP_URL each message is written as it is to DATA_DIR/outbox/*.eml', async () => {
    const transport = createTransport({ smtpUrl: '', dataDir });
    assert.equal(transport.kind, 'outbox');
    const first = await transport.send(message(1));
    await transport.send(message(2));
    await transport.close();
    const files = readdirSync(join(dataDir, 'outbox')).sort();
    assert.equal(files.length, 2);
    for (const file of files) assert.match(file, /\.eml$/);
    const written = files.map((f) => join(dataDir, 'outbox', f)).find((f) => first.response === `written to ${f}`);
    assert.ok(written, first.response);
    assert.ok(readFileSync(written).equals(Buffer.concat(message(1).raw)));
  });
});

describe('SMTP_URL', () => {
  test('one URL or several separated by commas; anything else stops the start', () => {
    assert.equal(loadConfig({ SMTP_URL: 'smtp://a.example:25/?tls=off' }).smtpUrl, 'smtp://a.example:25/?tls=off');
    assert.equal(loadConfig({ SMTP_URL: 'smtp://a.example, smtps://u:p@b.example:465' }).smtpUrl, 'smtp://a.example, smtps://u:p@b.example:465');
    for (const bad of ['smtp://a.example, http://b.example', 'smtp://a.example,', 'mail.example.com']) {
      assert.throws(() => loadConfig({ SMTP_URL: bad }), ConfigError, bad);
    }
  });
});
