import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTransport, type Transport } from '../../src/sending/transport.js';
import { startSmtpSink, type SmtpSink } from '../smtp-sink.js';
import { bothPass, testKeys, verify } from './dkim-fixtures.js';

/*
 * The relaxed canonicalisation over awkward buffers: the message split anywhere (inside a line, between CR and LF,
 * inside white space), bare line ends the SMTP client rewrites, dots at line starts, trailing blank lines, an empty
 * body; a buffer sent in several messages (its canonical form prepared once) after every kind of ending; random
 * bodies cut at random places. Each goes through the signing transport, Mailroom's SMTP client and the sink, then
 * mailauth checks it.
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

  test('a body ending in white space without a line end, and one ending in lines of white space', async () => {
    await sendAndVerify([Buffer.from(`${HEAD}last line \t `, 'latin1')]);
    await sendAndVerify([Buffer.from(`${HEAD}text\r\n \t\r\n\t\r\n  `, 'latin1')]);
    await sendAndVerify(cut(`${HEAD}text  \r\n\r\n \r\n`, HEAD.length + 5, HEAD.length + 7));
  });

  test('many blank lines over many small buffers, held back, then text in a small one', async () => {
    const blank = Array.from({ length: 5000 }, () => Buffer.from('\r\n'.repeat(40), 'latin1'));
    await sendAndVerify([Buffer.from(`${HEAD}first\r\n`, 'latin1'), ...blank, Buffer.from('x\r\n', 'latin1')]);
  });

  test('UTF-8 whose bytes include 0xA0 (no-break space in latin1) beside white space in the body; UTF-8 in a header', async () => {
    // "à" is C3 A0 in UTF-8: a canonicaliser that took 0xA0 for white space would change the text it hashes. (Only
    // in the body: mailauth's header canonicalisation does take 0xA0 for white space, /\s/ over a binary string,
    // where RFC 6376 names only SP and HTAB; Mailroom writes non-ASCII headers as encoded-words anyway.)
    const head = HEAD.replace('Subject:  spaced', 'Subject: Grüße  aus \t Köln ');
    await sendAndVerify(cut(`${head}à à  à\r\nvoilà \r\n à\r\n`, head.length + 3));
  });
});

describe('a buffer sent in many messages (a campaign attachment tail), prepared once', () => {
  const tails = {
    'a multipart tail': Buffer.from(
      `\r\n--b_a--\r\n--b_m\r\nContent-Type: application/pdf; name="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n` +
        `${randomBytes(3000).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n--b_m--\r\n`,
      'latin1',
    ),
    'a tail that starts with white space and ends with blank lines': Buffer.from('  indented \t text\r\nnext\r\n\r\n \r\n', 'latin1'),
    'a tail of blank lines and white space only': Buffer.from('\r\n \t \r\n\r\n', 'latin1'),
    'a tail without a final line end': Buffer.from('\r\nlast words  ', 'latin1'),
  };
  // What comes before the tail: the tail is then at the start of a line (the prepared form serves) or in the middle
  // of one (it does not), with line ends and white space held back.
  const heads = [
    'personal text\r\n',
    'personal text\r\n\r\n\r\n',
    'personal text \t\r\n \r\n',
    'personal text ending mid-line',
    'personal text ending in white space  ',
    '',
  ];
  for (const [what, tail] of Object.entries(tails)) {
    test(what, async () => {
      // Three rounds: the tail is seen, then prepared, then used prepared after every kind of head.
      for (let round = 0; round < 3; round++) {
        for (const head of heads) await sendAndVerify([Buffer.from(`${HEAD}${head}`, 'latin1'), tail]);
      }
    });
  }
});

describe('random bodies cut at random places', () => {
  test('80 messages of letters, spaces, tabs, CR, LF, dots and UTF-8, each signed and verified', async () => {
    const alphabet = ['a', 'b', ' ', ' ', '\t', '\r\n', '\r\n', '\r', '\n', '.', 'é', 'à', '\r\n\r\n', '  '];
    let seed = 24;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const shared = Buffer.from(Array.from({ length: 300 }, () => alphabet[random(alphabet.length)]).join(''), 'utf8');
    for (let m = 0; m < 80; m++) {
      const body = Array.from({ length: 1 + random(200) }, () => alphabet[random(alphabet.length)]).join('');
      const bytes = Buffer.from(body, 'utf8');
      const at = [random(bytes.length + 1), random(bytes.length + 1)].sort((x, y) => x - y);
      const raw = [Buffer.from(HEAD, 'latin1'), bytes.subarray(0, at[0]), bytes.subarray(at[0], at[1]), bytes.subarray(at[1])];
      // Every other message ends with the same buffer, as campaign mail ends with its attachments.
      await sendAndVerify(m % 2 === 0 ? raw : [...raw, shared]);
    }
  });
});

describe('the byte scan: runs of canonical lines hashed as they are, the lines around them rewritten', () => {
  const clean = 'A line that is canonical as it stands, hashed straight from the buffer=\r\n';
  const base64Part = randomBytes(6000).toString('base64').replace(/.{76}/g, '$&\r\n');
  const cases: Record<string, string> = {
    'a long line (10,000 characters, no line end inside)': `${clean}${'x'.repeat(5000)} ${'y'.repeat(4999)}\r\n${clean}`,
    'a long line of spaces and tabs between canonical lines': `${clean}${' \t'.repeat(3000)}\r\n${clean}`,
    'CRLF and bare LF mixed, line by line': `${clean}lf only\n${clean}\n\n${clean}crlf\r\nlf\nend`,
    'bare CR inside a line and at a line end': `${clean}one\rtwo\r\n${clean}three\r\r\n${clean}`,
    'trailing white space on lines, and lines of white space only': `${clean}trailing space \r\ntrailing tab\t\r\n \r\n\t\r\n${clean}`,
    'empty lines between runs and at the end': `\r\n\r\n${clean}\r\n\r\n\r\n${clean}x  y\r\n\r\n${clean}\r\n\r\n\r\n\r\n`,
    'a single leading space (kept) and two (folded)': `${clean} one leading\r\n  two leading\r\n${clean}`,
    'double spaces at the end of a buffer-sized run': `${clean.repeat(40)}a  b\r\n${clean.repeat(40)}`,
    'many lines to rewrite in a row, then canonical ones (the rest rewritten without looking)': `${'  indented  html\r\n'.repeat(30)}${clean.repeat(20)}\ttab\r\n${clean}`,
    'a base64 part between text parts': `${clean}--b\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Part}\r\n--b--\r\n`,
    'only white space and line ends': ' \r\n\t\r\n\r\n  ',
  };
  for (const [what, body] of Object.entries(cases)) {
    test(what, async () => {
      await sendAndVerify([Buffer.from(`${HEAD}${body}`, 'latin1')]);
      // The same body cut inside a run, inside white space and between CR and LF.
      const bytes = Buffer.from(`${HEAD}${body}`, 'latin1');
      const at = [HEAD.length + 37, HEAD.length + Math.floor(body.length / 2), bytes.length - 3].filter((n) => n > HEAD.length && n < bytes.length);
      await sendAndVerify(at.map((end, i) => bytes.subarray(i === 0 ? 0 : at[i - 1], end)).concat(bytes.subarray(at[at.length - 1])));
    });
  }

  test('8-bit bytes that are not UTF-8 (latin1 text sent as it is), and control characters', async () => {
    const eightBit = Buffer.from(`${clean}caf\xe9 na\xefve \xa0 \xff\xfe\r\n\x01\x02 \x7f\r\n${clean}`, 'latin1');
    await sendAndVerify([Buffer.from(HEAD.replace('charset=utf-8', 'charset=iso-8859-1'), 'latin1'), eightBit]);
  });

  test('an attachment tail shared by messages signed on two threads, each thread receiving it once', async () => {
    const twoThreads = createTransport({ smtpUrl: sink.url, dataDir: '/nonexistent', dkim: keys, dkimThreads: 2 });
    try {
      const tail = Buffer.from(
        `\r\n--b\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Part}\r\n--b--\r\n`,
        'latin1',
      );
      const before = sink.messages.length;
      // Sent together, so that both threads have messages in hand.
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          twoThreads.send({
            from: 'bounces@example.com',
            to: 'reader@example.net',
            raw: [Buffer.from(`${HEAD}personal ${i}  text\r\n`, 'latin1'), tail],
          }),
        ),
      );
      const mails = (await sink.waitFor(before + 12)).slice(before);
      for (const mail of mails) assert.deepEqual(await verify(mail.raw, keys), bothPass());
    } finally {
      await twoThreads.close();
    }
  });
});
