import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { markSmtpSafe } from '../../src/sending/smtp/data.js';
import { HEAD, mail, startServer, transportFor } from './smtp-servers.js';

/*
 * Mailroom's bulk SMTP client (src/sending/smtp), through the campaign transport, against real smtp-server instances:
 * the data section byte for byte, sessions and the pool, and the nodemailer fallback. Refusals, TLS and logins are in
 * smtp-refusals.test.ts.
 */

describe('the data section', () => {
  for (const pipelining of [true, false]) {
    test(`arrives byte for byte, dots at line starts doubled and undone by the server (PIPELINING ${pipelining ? 'on' : 'off'})`, async () => {
      const server = await startServer({ hidePIPELINING: !pipelining });
      const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off`);
      // A dot starts the body, a chunk, and a line inside a chunk; a lone dot line would end the data if not doubled.
      const chunks = [HEAD, '.first line\r\n', '.a chunk that starts a line\r\nmiddle\r\n.\r\n..two dots\r\n', 'end\r\n'];
      const result = await transport.send(mail('reader@example.com', ...chunks));
      assert.match(result.response, /^250 /);
      assert.equal(server.received.length, 1);
      assert.deepEqual(server.received[0]!.to, ['reader@example.com']);
      assert.equal(server.received[0]!.from, 'bounces@example.com');
      assert.equal(server.received[0]!.raw.toString(), chunks.join(''));
    });
  }

  test('bare CR and LF become CRLF, so no line end can be smuggled in; a mail without a final line end gets one', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off`);
    await transport.send(mail('reader@example.com', HEAD, 'one\ntwo\rthree\r\n', 'body\n.\nMAIL FROM:<evil@example.com>\r\n', 'no final line end'));
    assert.equal(server.received.length, 1, 'one message, not two');
    assert.equal(
      server.received[0]!.raw.toString(),
      `${HEAD}one\r\ntwo\r\nthree\r\nbody\r\n.\r\nMAIL FROM:<evil@example.com>\r\nno final line end\r\n`,
    );
  });

  test('a buffer checked once with markSmtpSafe goes out unchanged in every message', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=2`);
    const shared = markSmtpSafe(Buffer.from('--b\r\n.dot\nbare\r\n--b--\r\n', 'latin1'));
    assert.equal(shared.toString(), '--b\r\n..dot\r\nbare\r\n--b--\r\n', 'rewritten once, stuffed');
    assert.equal(markSmtpSafe(shared), shared, 'a checked buffer is known');
    await Promise.all([1, 2, 3].map((n) => transport.send({ from: 'b@example.com', to: `r${n}@example.com`, raw: [Buffer.from(HEAD), shared] })));
    assert.deepEqual(
      server.received.map((m) => m.raw.toString()),
      [1, 2, 3].map(() => `${HEAD}--b\r\n.dot\r\nbare\r\n--b--\r\n`),
    );
  });
});

describe('sessions', () => {
  test('many messages share a few sessions (pool=N), one transaction at a time on each', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=3`);
    const addresses = Array.from({ length: 30 }, (_, i) => `r${i}@example.com`);
    await Promise.all(addresses.map((to) => transport.send(mail(to, HEAD, `for ${to}\r\n`))));
    assert.equal(server.received.length, 30);
    assert.deepEqual(server.received.map((m) => m.to[0]).sort(), [...addresses].sort());
    for (const m of server.received) assert.equal(m.raw.toString(), `${HEAD}for ${m.to[0]}\r\n`);
    assert.ok(server.connections <= 3, `${server.connections} sessions`);
  });

  test('a server that takes fewer sessions than the pool asks for: the sessions it took carry every message', async () => {
    const server = await startServer({ maxClients: 2 });
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=5`);
    const addresses = Array.from({ length: 20 }, (_, i) => `r${i}@example.com`);
    const results = await Promise.allSettled(addresses.map((to) => transport.send(mail(to, HEAD, 'x\r\n'))));
    assert.deepEqual(
      results.filter((r) => r.status === 'rejected'),
      [],
      'no message fails for a session the server turned away',
    );
    assert.deepEqual(server.received.map((m) => m.to[0]).sort(), [...addresses].sort());
  });

  test('a session the server closed is replaced, and the next message goes through', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=1`);
    await transport.send(mail('a@example.com', HEAD, 'one\r\n'));
    for (const socket of server.sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await transport.send(mail('b@example.com', HEAD, 'two\r\n'));
    assert.deepEqual(
      server.received.map((m) => m.to[0]),
      ['a@example.com', 'b@example.com'],
    );
    assert.equal(server.connections, 2);
  });

  test('an internationalised address goes with SMTPUTF8', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off`);
    await transport.send({ from: 'bounces@example.com', to: 'jürgen@exämple.com', raw: [Buffer.from(HEAD, 'utf8')] });
    assert.deepEqual(server.received[0]!.to, ['jürgen@exämple.com']);
  });
});

describe('?client=nodemailer', () => {
  test('the same message through nodemailer instead, for a server our client does not get along with', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&client=nodemailer`);
    const chunks = [HEAD, '.dot\r\n', 'end\r\n'];
    assert.match((await transport.send(mail('r@example.com', ...chunks))).response, /^250 /);
    assert.equal(server.received[0]!.raw.toString(), chunks.join(''));
  });
});
