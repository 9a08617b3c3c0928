import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { pollMailbox, UNREADABLE_KEYWORD } from '../../src/messaging/bounce-mailbox.js';
import type { AppContext } from '../../src/context.js';
import { startTestApp, type TestApp } from '../helper.js';
import { startImapServer } from '../imap-server.js';

/*
 * Bounce messages built to make a parser backtrack (issue 17): each is BOUNCE_MAX_SIZE (10 MB) of the worst input
 * known for one pass of the reader (mime.ts, dsn.ts) and must be read in well under a second. The time measured is
 * this process's CPU time, not the clock: the test machine is shared, and CPU time is what a quadratic pass burns
 * (with PGlite the database's work is in it too).
 */

const TOKEN = 'pathological-test-token-0123456789';
const MAX_SIZE = 10 * 1024 * 1024;
/** Per message, reading and storing included. The quadratic passes took 4.6 s on the 80 KB example. */
const LIMIT_MS = 1000;

let t: TestApp;
before(async () => {
  t = await startTestApp({ bounces: { ...loadConfig({}).bounces, inboundToken: TOKEN, maxSize: MAX_SIZE } });
});
after(() => t.close());

const post = (payload: Buffer) =>
  t.inject({
    method: 'POST',
    url: '/api/v2/bounces/inbound',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
    payload,
  });

/** A message of exactly `size` bytes: a bounce header, `head`, then `unit` repeated, then `tail`. */
function message(head: string, unit: string, tail = '', size = MAX_SIZE): Buffer {
  const top = `From: MAILER-DAEMON@example.com\r\nMessage-ID: <${randomBytes(8).toString('hex')}@example.com>\r\n${head}`;
  const room = size - top.length - tail.length;
  const body = unit.repeat(Math.floor(room / unit.length));
  return Buffer.from(top + body + 'x'.repeat(room - body.length) + tail, 'latin1');
}

const report = (type: string, fields = '') =>
  `Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n--b\r\nContent-Type: ${type}\r\n\r\n${fields}`;

/** Name → message: one for each pass over outside text. */
const CASES: [string, () => Buffer][] = [
  [
    "the issue's example: 80,000 spaces in a quoted-printable body",
    () => message('Content-Transfer-Encoding: quoted-printable\r\n\r\n', ' ', '', 80_001),
  ],
  ['quoted-printable: spaces without a line break', () => message('Content-Transfer-Encoding: quoted-printable\r\n\r\n', ' ')],
  ['quoted-printable: "=" and spaces', () => message('Content-Transfer-Encoding: quoted-printable\r\n\r\n', '= \t')],
  ['HTML: "<" without ">"', () => message('Content-Type: text/html\r\n\r\n', '<')],
  ['HTML in a report: "<a" without ">"', () => message(report('text/html'), '<a', '\r\n--b--\r\n')],
  ['base64: nothing of the alphabet', () => message('Content-Transfer-Encoding: base64\r\n\r\n', '-_!')],
  ['Content-Type parameters without end', () => message('Content-Type: text/plain', ';a="\\', '\r\n\r\nx')],
  ['Content-Type parameter names', () => message('Content-Type: text/plain; a', '*1', '=x\r\n\r\nx')],
  ['a million header fields', () => message('', 'X-A: b\r\n', '\r\n\r\nx')],
  ['one header field of 10 MB', () => message('Subject: ', 'a', '\r\n\r\nx')],
  ['header lines that are no field (in a part)', () => message('Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n', 'a \n', '')],
  ['delivery status: blank-looking lines', () => message(report('message/delivery-status'), '\n \t', '\r\n--b--\r\n')],
  ['delivery status: one field of spaces', () => message(report('message/delivery-status', 'Action: failed\r\nStatus: '), ' ', '\r\n--b--\r\n')],
  [
    'diagnostic: encoded words',
    () => message(report('message/delivery-status', 'Action: failed\r\nDiagnostic-Code: smtp; '), '=?a?B?a?= ', '\r\n--b--\r\n'),
  ],
  [
    'diagnostic: unfinished encoded words',
    () => message(report('message/delivery-status', 'Action: failed\r\nDiagnostic-Code: smtp; '), '=?a', '\r\n--b--\r\n'),
  ],
  ['returned headers quoted in the text: ">" and spaces', () => message('\r\n', '\n >', '')],
  ['status codes that never finish', () => message('\r\n', '550 5.1.', '')],
  ['Message-IDs that never close', () => message('\r\nMessage-ID: ', `<${'a'.repeat(249)}`, '')],
  ['boundary lines with trailing junk', () => message('Content-Type: multipart/mixed; boundary=b\r\n\r\n', `--b${' '.repeat(50)}x\n`, '')],
  ['carriage returns', () => message('\r\n', '\r', '')],
];

describe('POST /bounces/inbound: pathological messages of BOUNCE_MAX_SIZE', () => {
  for (const [name, build] of CASES) {
    test(`${name}: read and stored in well under a second`, async (c) => {
      const body = build();
      const before = process.cpuUsage();
      const res = await post(body);
      const used = process.cpuUsage(before);
      const ms = (used.user + used.system) / 1000;
      c.diagnostic(`${Math.round(ms)} ms of CPU`);
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(res.json().duplicate, false);
      assert.ok(ms < LIMIT_MS, `${name}: ${Math.round(ms)} ms of CPU for ${body.length} bytes`);
    });
  }

  test('a message that takes longer than BOUNCE_READ_TIMEOUT_MS → 422 saying so', async () => {
    const slow = await startTestApp({ bounces: { ...t.ctx.config.bounces, readTimeoutMs: 1 } });
    try {
      const res = await slow.inject({
        method: 'POST',
        url: '/api/v2/bounces/inbound',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
        payload: message('Content-Transfer-Encoding: quoted-printable\r\n\r\n', ' '),
      });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), {
        message: 'Validation failed',
        errors: { body: ['The message could not be read within 1 ms; it is too large or too complex.'] },
      });
    } finally {
      await slow.close();
    }
  });
});

describe('bounce mailbox: a message that takes too long', () => {
  test('is flagged unreadable and left, and not read again at the next poll', async () => {
    const server = await startImapServer();
    try {
      server.add(message('Content-Transfer-Encoding: quoted-printable\r\n\r\n', ' '));
      const ctx: AppContext = {
        ...t.ctx,
        config: { ...t.ctx.config, bounces: { ...t.ctx.config.bounces, mailboxUrl: server.url, readTimeoutMs: 1 } },
      };
      const first = await pollMailbox(ctx);
      assert.deepEqual({ fetched: first.fetched, unreadable: first.unreadable, failed: first.failed }, { fetched: 1, unreadable: 1, failed: 0 });
      assert.deepEqual([...server.folders.get('INBOX')![0]!.flags].sort(), ['\\Seen', UNREADABLE_KEYWORD].sort());
      const again = await pollMailbox(ctx);
      assert.equal(again.fetched, 0);
    } finally {
      await server.close();
    }
  });
});

describe('bounce rules under the reading deadline (issue 23)', () => {
  test('rules that take longer than BOUNCE_READ_TIMEOUT_MS are cut off; the bounce is still recorded', async () => {
    const slow = await startTestApp({ bounces: { ...loadConfig({}).bounces, inboundToken: TOKEN, maxSize: MAX_SIZE, readTimeoutMs: 60 } });
    try {
      const { headers } = await slow.adminWithSession();
      // Each is inside the program bound, yet takes tens of milliseconds on 19,000 "a"s and matches nothing (the text
      // ends in "ab!", so none may end in "b"); eight of them take far longer than the deadline even on a fast
      // machine. The last would match.
      const rules = [...'cdefghij'].map((last) => `/(?:a|aa|aaa|aaaa|aaaa${last}){1,60}!/`).concat('/mailbox full/');
      for (const [i, regex] of rules.entries()) {
        const res = await slow.inject({
          method: 'POST',
          url: '/api/v2/bounces/regex',
          headers,
          payload: { regex, action: 'deletebounce', status: 'active', list_order: i },
        });
        assert.equal(res.statusCode, 201, res.body);
      }
      const bounce = message(report('text/plain', 'mailbox full\r\n'), 'a', 'b!\r\n--b--\r\n', 19_500);
      const started = process.cpuUsage();
      const res = await slow.inject({
        method: 'POST',
        url: '/api/v2/bounces/inbound',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
        payload: bounce,
      });
      const cpu = process.cpuUsage(started);
      assert.equal(res.statusCode, 202, res.body);
      const body = res.json();
      assert.equal(body.rule_id, null, 'cut off before any rule matched');
      assert.equal(body.duplicate, false);
      const stored = await slow.inject({ method: 'GET', url: `/api/v2/bounces/${body.id}`, headers });
      assert.equal(stored.statusCode, 200);
      assert.ok((cpu.user + cpu.system) / 1000 < LIMIT_MS, `${(cpu.user + cpu.system) / 1000} ms`);
    } finally {
      await slow.close();
    }
  });
});
