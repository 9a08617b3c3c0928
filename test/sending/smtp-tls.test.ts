import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createMailer } from '../../src/mail/mailer.js';
import { cert, HEAD, key, mail, refusal, startServer, transportFor } from './smtp-servers.js';

/*
 * SMTP and TLS (issue 14): `?tls=required` refuses a server without STARTTLS; a login never goes in clear unless the
 * URL says `?tls=off`; and what a server sends in clear after its answer to STARTTLS is thrown away (RFC 3207 §4.2).
 */

const loginServer = (offerTls: boolean) => {
  let logins = 0;
  return {
    logins: () => logins,
    start: () =>
      startServer({
        ...(offerTls ? { key, cert } : {}),
        disabledCommands: offerTls ? [] : ['STARTTLS'],
        allowInsecureAuth: true,
        authOptional: false,
        authMethods: ['PLAIN'],
        onAuth(auth, _session, callback) {
          logins++;
          callback(null, { user: auth.username });
        },
      }),
  };
};

describe('?tls=required', () => {
  test('a server without STARTTLS: nothing is sent, a temporary failure saying why', async () => {
    const server = await startServer();
    const failure = await refusal(transportFor(`smtp://127.0.0.1:${server.port}/?tls=required`).send(mail('r@example.com', HEAD, 'x\r\n')));
    assert.equal(failure.permanent, false);
    assert.match(failure.response, /offers no STARTTLS, and the SMTP URL says \?tls=required/);
    assert.equal(server.received.length, 0);
  });

  test('a server with STARTTLS: sent over TLS', async () => {
    const server = await startServer({ key, cert });
    await transportFor(`smtp://127.0.0.1:${server.port}/?tls=required`, { ca: cert }).send(mail('r@example.com', HEAD, 'x\r\n'));
    assert.equal(server.received[0]!.secure, true);
  });

  test('system mail (nodemailer) refuses the same server', async () => {
    const server = await startServer();
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${server.port}/?tls=required`, mailFrom: 'a@example.com', dataDir: '/nonexistent' });
    await assert.rejects(mailer.send({ to: 'r@example.com', subject: 's', text: 'x' }), /STARTTLS/);
    await mailer.close();
    assert.equal(server.received.length, 0);
  });

  test('any other ?tls= value is refused at start', () => {
    assert.throws(
      () => loadConfig({ SMTP_URL: 'smtp://127.0.0.1:25/?tls=requried' }),
      (err: Error) =>
        err instanceof ConfigError && err.message === 'Invalid environment variable SMTP_URL: ?tls= takes off or required, got "requried"',
    );
  });
});

describe('a login never goes in clear unless ?tls=off says so', () => {
  test('campaign mail: a server without STARTTLS gets no login and no mail', async () => {
    const counted = loginServer(false);
    const server = await counted.start();
    const failure = await refusal(transportFor(`smtp://u:secret@127.0.0.1:${server.port}/`).send(mail('r@example.com', HEAD, 'x\r\n')));
    assert.equal(failure.permanent, false);
    assert.match(failure.response, /the login is not sent without TLS \(add \?tls=off/);
    assert.equal(counted.logins(), 0);
    assert.equal(server.received.length, 0);

    await transportFor(`smtp://u:secret@127.0.0.1:${server.port}/?tls=off`).send(mail('r@example.com', HEAD, 'x\r\n'));
    assert.equal(counted.logins(), 1);
  });

  test('campaign mail: with STARTTLS offered, the login goes after the handshake', async () => {
    const counted = loginServer(true);
    const server = await counted.start();
    await transportFor(`smtp://u:secret@127.0.0.1:${server.port}/`, { ca: cert }).send(mail('r@example.com', HEAD, 'x\r\n'));
    assert.deepEqual([server.received[0]!.secure, server.received[0]!.user, counted.logins()], [true, 'u', 1]);
  });

  test('system mail: the same refusal', async () => {
    const counted = loginServer(false);
    const server = await counted.start();
    const mailer = createMailer({ smtpUrl: `smtp://u:secret@127.0.0.1:${server.port}/`, mailFrom: 'a@example.com', dataDir: '/nonexistent' });
    await assert.rejects(mailer.send({ to: 'r@example.com', subject: 's', text: 'x' }), /STARTTLS/);
    await mailer.close();
    assert.equal(counted.logins(), 0);
  });
});

/**
 * A bare SMTP server that answers STARTTLS with `afterStartTls` (its 220 plus whatever a man in the middle adds in
 * clear), then speaks over TLS: EHLO, MAIL, RCPT, DATA, QUIT, one command at a time.
 */
async function injectingServer(afterStartTls: string): Promise<{ port: number; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const serve = (socket: Socket | TLSSocket, secure: boolean) => {
    let buffer = '';
    let data: string | null = null;
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (data !== null) {
          if (line === '.') {
            received.push(data);
            data = null;
            socket.write('250 queued\r\n');
          } else data += `${line}\r\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write(secure ? '250-hello\r\n250 8BITMIME\r\n' : '250-hello\r\n250 STARTTLS\r\n');
        else if (verb === 'STAR' && !secure) {
          socket.removeAllListeners('data');
          socket.write(afterStartTls);
          const tls = new TLSSocket(socket, { isServer: true, key, cert });
          serve(tls, true);
          return;
        } else if (verb === 'DATA') {
          data = '';
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write('220 injecting test server\r\n');
    serve(socket, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  after(close);
  return { port: (server.address() as AddressInfo).port, received, close };
}

describe('STARTTLS: the reply reader starts empty after the handshake', () => {
  for (const [what, injected] of [
    ['whole replies', '250 injected one\r\n250 injected two\r\n'],
    ['a partial line', '250-injected'],
  ] as const) {
    // Before the fix the client read the injected lines as answers and the session hung: the timeout makes that a failure.
    test(`${what} sent in clear after the 220 are discarded, and the mail goes through over TLS`, { timeout: 15_000 }, async () => {
      const server = await injectingServer(`220 ready for TLS\r\n${injected}`);
      const result = await transportFor(`smtp://127.0.0.1:${server.port}/`, { ca: cert }).send(mail('r@example.com', HEAD, 'over tls\r\n'));
      assert.equal(result.response, '250 queued');
      assert.deepEqual(server.received, [`${HEAD}over tls\r\n`]);
    });
  }
});

describe('the certificate is checked against the host SMTP_URL names (issue 23)', () => {
  // A relay whose certificate names only its IP address, issued by a private CA the client is told to trust.
  const ipKey = readFileSync(join(import.meta.dirname, '../fixtures/tls/ip-only.key'));
  const ipCert = readFileSync(join(import.meta.dirname, '../fixtures/tls/ip-only.crt'));
  const ca = readFileSync(join(import.meta.dirname, '../fixtures/tls/ca.crt'));

  test('STARTTLS to smtp://127.0.0.1 accepts a certificate for IP 127.0.0.1 (not compared with "localhost")', async () => {
    const server = await startServer({ key: ipKey, cert: ipCert });
    await transportFor(`smtp://127.0.0.1:${server.port}/?tls=required`, { ca }).send(mail('r@example.com', HEAD, 'x\r\n'));
    assert.equal(server.received[0]!.secure, true);
  });

  test('smtps://127.0.0.1 accepts it too', async () => {
    const server = await startServer({ key: ipKey, cert: ipCert, secure: true });
    await transportFor(`smtps://127.0.0.1:${server.port}/`, { ca }).send(mail('r@example.com', HEAD, 'x\r\n'));
    assert.equal(server.received[0]!.secure, true);
  });

  test('the same certificate reached as "localhost" is refused: the name is really checked', async () => {
    const server = await startServer({ key: ipKey, cert: ipCert });
    const failure = await refusal(transportFor(`smtp://localhost:${server.port}/`, { ca }).send(mail('r@example.com', HEAD, 'x\r\n')));
    assert.match(failure.response, /STARTTLS failed: Hostname\/IP does not match certificate's altnames: Host: localhost\./);
    assert.equal(server.received.length, 0);
  });
});
