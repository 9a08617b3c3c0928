import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTransport, type Transport } from '../../src/sending/transport.js';
import { startSmtpSink, type SmtpSink } from '../smtp-sink.js';
import { bothPass, testKeys, verify } from './dkim-fixtures.js';

/*
 * The relaxed canonicalisation over awkward buffers: the message split anywhere (inside a line, between CR and LF,
 * inside white space), bare line ends the SMTP client rewrites, dots at line starts, trailing blank lines, an empty
 * body. Each goes through the signing transport, Mailroom's SMTP client and the sink, then mailauth checks it.
 */

const keys = testKeys('example.com');
let sink: SmtpSink;
let transport: Transport;
before(async () => {
  sink = await startSmtpSink();
  transport = createTransport({ smtpUrl: sink.url, dataDir: '/nonexistent', dkim: keys });
});
after(async () => {
  await transport.close();
  await sink.close();
});

const HEAD =
  'From: "News, Ltd." <news@Example.COM>\r\nTo: reader@example.net\r\nSubject:  spaced \t out \r\n  and folded\r\n' +
  'Date: Tue, 03 Nov 2026 09:30:00 +0000\r\nMessage-ID: <x@example.com>\r\nMIME-Version: 1.0\r\n' +
  'Content-Type: text/plain; charset=utf-8\r\n\r\n';

/** `text` cut into pieces at the given offsets. */
function cut(text: string, ...at: number[]): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const points = [0, ...at, bytes.length];
  return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
}

async function sendAndVerify(raw: Buffer[]): Promise<Buffer> {
  const before = sink.messages.length;
  await transport.send({ from: 'bounces@example.com', to: 'reader@example.net', raw });
  const [mail] = (await sink.waitFor(before + 1)).slice(before);
  assert.deepEqual(await verify(mail!.raw, keys), bothPass());
  return mail!.raw;
}

describe('relaxed canonicalisation across buffers', () => {
  const body = 'Line one  with   spaces \t \r\n.dot line\r\n..two dots\r\n\r\n   \r\nmiddle\t\r\nÜnïcödé ✓\r\n\r\n\r\n';
  const message = HEAD + body;
  const cases: [string, Buffer[], string][] = [
    ['one buffer', cut(message), body],
    ['split inside a line and inside white space', cut(message, HEAD.length + 6, HEAD.length + 12, HEAD.length + 30), body],
    // The client makes CRLF of a buffer's last CR and of the next one's first LF (smtp/data.ts, buffer by buffer):
    // one line end more, and the signature covers it as sent.
    ['split between CR and LF', cut(message, message.indexOf('\r\n.dot') + 1), body.replace('\r\n.dot', '\r\n\r\n.dot')],
    ['split in the header section', cut(message, 20, 90), body],
    [
      'split at every line end',
      cut(message, ...[...message.matchAll(/\r\n/g)].map((m) => Buffer.byteLength(message.slice(0, m.index + 2))).slice(0, -1)),
      body,
    ],
  ];
  for (const [what, raw, arrives] of cases) {
    test(what, async () => {
      const received = await sendAndVerify(raw);
      // The body arrives as sent (the dots the client doubled were undone by the server).
      assert.ok(received.toString('utf8').endsWith(`\r\n\r\n${arrives}`), received.toString('utf8'));
    });
  }

  test('bare LF and CR line ends, which the client sends as CRLF', async () => {
    await sendAndVerify([Buffer.from(`${HEAD}first\nsecond\rthird\r\n.\n`, 'utf8')]);
  });

  test('the same large buffer in several messages (its canonical form kept after the second)', async () => {
    const tail = Buffer.from(`${'static line with  double  spaces \r\n'.repeat(2000)}end\r\n`, 'latin1');
    for (let i = 0; i < 3; i++) await sendAndVerify([Buffer.from(`${HEAD}personal ${i}\r\n`, 'latin1'), tail]);
  });

  test('an empty body, and a body of blank lines only', async () => {
    await sendAndVerify([Buffer.from(HEAD, 'latin1')]);
    await sendAndVerify([Buffer.from(`${HEAD}\r\n\r\n \r\n`, 'latin1')]);
  });

  test('a body without a final line end', async () => {
    await sendAndVerify([Buffer.from(`${HEAD}no line end  `, 'latin1')]);
  });
});
