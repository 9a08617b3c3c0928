import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createTransport, SMTP_TIMEOUTS, type Transport } from '../../src/sending/transport.js';
import { HEAD, mail, refusal } from './smtp-servers.js';

/*
 * Issue 17: a server that accepts the connection and then says nothing held a batch for the 120 s socket timeout.
 * The greeting, each command and the end of the data now have deadlines of their own; here they are short, against
 * a plain TCP server that answers up to a chosen point and then falls silent (smtp-server always greets).
 */

type SilentAt = 'greeting' | 'mail' | 'end of data' | 'never';

const servers: Server[] = [];
const sockets = new Set<Socket>();
const transports: Transport[] = [];
after(async () => {
  await Promise.all(transports.map((t) => t.close()));
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Speaks just enough SMTP (no PIPELINING) and goes quiet at `silentAt`, keeping the connection open. */
async function quietServer(silentAt: SilentAt): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (silentAt !== 'greeting') socket.write('220 quiet.example ESMTP\r\n');
    let buffer = '';
    let inData = false;
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end === -1) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          if (silentAt !== 'end of data') socket.write('250 queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol === -1) return;
        const line = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (line.startsWith('MAIL') && silentAt === 'mail') continue;
        if (line.startsWith('DATA')) {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const SHORT = { greetingTimeoutMs: 300, commandTimeoutMs: 300, dataTimeoutMs: 300 };

function transportTo(port: number): Transport {
  const transport = createTransport({ smtpUrl: `smtp://127.0.0.1:${port}/?tls=off`, dataDir: '/nonexistent' }, { timeouts: SHORT });
  transports.push(transport);
  return transport;
}

describe('SMTP reply deadlines', () => {
  const cases: [SilentAt, string][] = [
    ['greeting', 'greeting'],
    ['mail', 'mail'],
    ['end of data', 'message'],
  ];
  for (const [silentAt, stage] of cases) {
    test(
      `a server silent at the ${silentAt} fails the send as temporary within its deadline, not the socket's 120 s`,
      { timeout: 10_000 },
      async () => {
        const transport = transportTo(await quietServer(silentAt));
        const started = Date.now();
        const failure = await refusal(transport.send(mail('reader@example.com', HEAD, 'body\r\n')));
        const elapsed = Date.now() - started;
        assert.equal(failure.permanent, false, 'the recipient is not at fault: retried later');
        assert.equal(failure.response, `No answer from the server within 300 ms (${stage}).`);
        assert.ok(elapsed >= 250 && elapsed < 3000, `failed after ${elapsed} ms`);
      },
    );
  }

  test('a server that answers is not cut off by the deadlines, and the session goes on serving', { timeout: 10_000 }, async () => {
    const transport = transportTo(await quietServer('never'));
    for (let i = 0; i < 3; i++) {
      assert.equal((await transport.send(mail(`r${i}@example.com`, HEAD, 'body\r\n'))).response, '250 queued');
      await new Promise((r) => setTimeout(r, 400)); // longer than each deadline: an idle session is not failed
    }
  });

  test('the defaults give up in seconds, each below RFC 5321 §4.5.3.2 minutes and the old 120 s', () => {
    assert.deepEqual(SMTP_TIMEOUTS, {
      connectionTimeoutMs: 10_000,
      greetingTimeoutMs: 15_000,
      commandTimeoutMs: 15_000,
      dataTimeoutMs: 60_000,
      socketTimeoutMs: 120_000,
    });
  });
});
