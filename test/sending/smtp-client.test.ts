import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { markSmtpSafe } from '../../src/sending/smtp/data.js';
import { createTransport, SendFailure, type RawMessage, type Transport } from '../../src/sending/transport.js';

/*
 * Mailroom's bulk SMTP client (src/sending/smtp), through the campaign transport, against real smtp-server instances
 * set up the way each case needs: with and without PIPELINING, STARTTLS and implicit TLS, logins, refusals at each
 * step, and servers that hang up.
 */

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'tls');
const key = readFileSync(join(fixtures, 'localhost.key'));
const cert = readFileSync(join(fixtures, 'localhost.crt'));

interface Received {
  readonly from: string;
  readonly to: string[];
  readonly raw: Buffer;
  readonly secure: boolean;
  readonly user: string | undefined;
}

interface TestServer {
  readonly port: number;
  readonly received: Received[];
  /** Sessions opened so far. */
  connections: number;
  readonly sockets: Set<Socket>;
  close(): Promise<void>;
}

const servers: TestServer[] = [];
const transports: Transport[] = [];
after(async () => {
  await Promise.all(transports.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
});

async function startServer(options: SMTPServerOptions = {}): Promise<TestServer> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: options.secure || options.key ? ['AUTH'] : ['STARTTLS', 'AUTH'],
    ...options,
    onConnect(session, callback) {
      state.connections++;
      if (options.onConnect) options.onConnect(session, callback);
      else callback();
    },
    onData(stream, session: SMTPServerSession, callback) {
      if (options.onData) return options.onData(stream, session, callback);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const handle: TestServer = {
    port: (server.server.address() as AddressInfo).port,
    received,
    get connections() {
      return state.connections;
    },
    sockets,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  servers.push(handle);
  return handle;
}

function transportFor(url: string, tls?: { ca?: Buffer }): Transport {
  const transport = createTransport({ smtpUrl: url, dataDir: '/nonexistent' }, { tls });
  transports.push(transport);
  return transport;
}

function mail(to: string, ...chunks: string[]): RawMessage {
  return { from: 'bounces@example.com', to, raw: chunks.map((c) => Buffer.from(c, 'utf8')) };
}

async function refusal(promise: Promise<unknown>): Promise<SendFailure> {
  const err = await promise.then(
    () => assert.fail('the send should have failed'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof SendFailure, String(err));
  return err;
}

const HEAD = 'From: news@example.com\r\nTo: reader@example.com\r\nSubject: Hello\r\n\r\n';

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
    assert.deepEqual(results.filter((r) => r.status === 'rejected'), [], 'no message fails for a session the server turned away');
    assert.deepEqual(server.received.map((m) => m.to[0]).sort(), [...addresses].sort());
  });

  test('a session the server closed is replaced, and the next message goes through', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=1`);
    await transport.send(mail('a@example.com', HEAD, 'one\r\n'));
    for (const socket of server.sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await transport.send(mail('b@example.com', HEAD, 'two\r\n'));
    assert.deepEqual(server.received.map((m) => m.to[0]), ['a@example.com', 'b@example.com']);
    assert.equal(server.connections, 2);
  });

  test('an internationalised address goes with SMTPUTF8', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off`);
    await transport.send({ from: 'bounces@example.com', to: 'jürgen@exämple.com', raw: [Buffer.from(HEAD, 'utf8')] });
    assert.deepEqual(server.received[0]!.to, ['jürgen@exämple.com']);
  });
});

describe('refusals', () => {
  test('a refused recipient: 5xx is permanent, 4xx temporary, and the same session serves the next message', async () => {
    let answer: { code: number; text: string } | null = null;
    const server = await startServer({
      onRcptTo(_address, _session, callback) {
        const refuse = answer;
        answer = null;
        if (refuse) callback(Object.assign(new Error(refuse.text), { responseCode: refuse.code }));
        else callback();
      },
    });
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=1`);
    answer = { code: 550, text: 'No such user here' };
    const permanent = await refusal(transport.send(mail('gone@example.com', HEAD, 'x\r\n')));
    assert.equal(permanent.permanent, true);
    assert.equal(permanent.response, '550 No such user here');
    answer = { code: 452, text: 'Mailbox full, try later' };
    const temporary = await refusal(transport.send(mail('full@example.com', HEAD, 'x\r\n')));
    assert.equal(temporary.permanent, false);
    assert.equal(temporary.response, '452 Mailbox full, try later');
    await transport.send(mail('fine@example.com', HEAD, 'x\r\n'));
    assert.deepEqual(server.received.map((m) => m.to[0]), ['fine@example.com']);
    assert.equal(server.connections, 1, 'RSET, not a new session');
  });

  test('a refused sender or refused data is recorded with the reply', async () => {
    let refuseData = false;
    const server = await startServer({
      hidePIPELINING: true,
      onMailFrom(address, _session, callback) {
        if (address.address === 'blocked@example.com') callback(Object.assign(new Error('Sender not allowed'), { responseCode: 553 }));
        else callback();
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback(refuseData ? Object.assign(new Error('Message looks like spam'), { responseCode: 554 }) : null));
      },
    });
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=1`);
    const sender = await refusal(transport.send({ from: 'blocked@example.com', to: 'r@example.com', raw: [Buffer.from(HEAD)] }));
    assert.equal(sender.permanent, true);
    assert.equal(sender.response, '553 Sender not allowed');
    refuseData = true;
    const data = await refusal(transport.send(mail('r@example.com', HEAD, 'buy now\r\n')));
    assert.equal(data.permanent, true);
    assert.equal(data.response, '554 Message looks like spam');
    refuseData = false;
    assert.match((await transport.send(mail('r@example.com', HEAD, 'hello\r\n'))).response, /^250 /);
    assert.equal(server.connections, 1);
  });

  test('a server with a SIZE limit refuses a larger message at MAIL FROM, before the data is sent', async () => {
    let dataSeen = false;
    const server = await startServer({
      size: 1000,
      onData(stream, _session, callback) {
        dataSeen = true;
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off&pool=1`);
    const failure = await refusal(transport.send(mail('r@example.com', HEAD, 'x'.repeat(2000))));
    assert.equal(failure.permanent, true);
    assert.match(failure.response, /^552 /);
    assert.equal(dataSeen, false);
    assert.match((await transport.send(mail('r@example.com', HEAD, 'small\r\n'))).response, /^250 /);
    assert.equal(dataSeen, true);
  });

  test('an envelope address with a line end is refused before anything is written', async () => {
    const server = await startServer();
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off`);
    const failure = await refusal(transport.send(mail('a@example.com>\r\nRCPT TO:<b@example.com', HEAD)));
    assert.match(failure.response, /line end or angle bracket/);
    await transport.send(mail('c@example.com', HEAD));
    assert.deepEqual(server.received.map((m) => m.to), [['c@example.com']]);
  });

  test('a server that turns the session away is a temporary failure, even with a 5xx greeting', async () => {
    const server = await startServer({
      onConnect(_session, callback) {
        callback(Object.assign(new Error('No service for you'), { responseCode: 554 }));
      },
    });
    const transport = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off`);
    const failure = await refusal(transport.send(mail('r@example.com', HEAD, 'x\r\n')));
    assert.equal(failure.permanent, false);
    assert.match(failure.response, /^554 No service for you/);
  });

  test('an unreachable server fails every waiting message at once, temporarily', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const transport = transportFor(`smtp://127.0.0.1:${port}/?tls=off&pool=2`);
    const failures = await Promise.all([1, 2, 3, 4, 5].map((n) => refusal(transport.send(mail(`r${n}@example.com`, HEAD)))));
    for (const failure of failures) {
      assert.equal(failure.permanent, false);
      assert.match(failure.response, /ECONNREFUSED/);
    }
  });
});

describe('TLS and login', () => {
  test('STARTTLS when the server offers it, with the certificate verified', async () => {
    const server = await startServer({ key, cert });
    const trusted = transportFor(`smtp://127.0.0.1:${server.port}/`, { ca: cert });
    await trusted.send(mail('r@example.com', HEAD, 'secret\r\n'));
    assert.equal(server.received[0]!.secure, true);

    const untrusting = transportFor(`smtp://127.0.0.1:${server.port}/`);
    const failure = await refusal(untrusting.send(mail('r@example.com', HEAD, 'x\r\n')));
    assert.equal(failure.permanent, false);
    assert.match(failure.response, /STARTTLS failed: .*self-signed certificate/);

    const plain = transportFor(`smtp://127.0.0.1:${server.port}/?tls=off`);
    await plain.send(mail('r@example.com', HEAD, 'in clear\r\n'));
    assert.equal(server.received[1]!.secure, false, 'tls=off never upgrades');
  });

  test('smtps: TLS from the first byte', async () => {
    const server = await startServer({ key, cert, secure: true });
    const transport = transportFor(`smtps://127.0.0.1:${server.port}/`, { ca: cert });
    await transport.send(mail('r@example.com', HEAD, 'x\r\n'));
    assert.equal(server.received[0]!.secure, true);
  });

  for (const method of ['PLAIN', 'LOGIN'] as const) {
    test(`AUTH ${method}: the login from the URL; a refused login is temporary, not the recipient's fault`, async () => {
      const server = await startServer({
        disabledCommands: ['STARTTLS'],
        allowInsecureAuth: true,
        authOptional: false,
        authMethods: [method],
        onAuth(auth, _session, callback) {
          if (auth.method !== method || auth.username !== 'mailer@example.com' || auth.password !== 'p@ss word') {
            return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
          }
          callback(null, { user: auth.username });
        },
      });
      const transport = transportFor(`smtp://mailer%40example.com:p%40ss%20word@127.0.0.1:${server.port}/?tls=off`);
      await transport.send(mail('r@example.com', HEAD, 'x\r\n'));
      assert.equal(server.received[0]!.user, 'mailer@example.com');

      const wrong = transportFor(`smtp://mailer%40example.com:nope@127.0.0.1:${server.port}/?tls=off`);
      const failure = await refusal(wrong.send(mail('r@example.com', HEAD, 'x\r\n')));
      assert.equal(failure.permanent, false);
      assert.match(failure.response, /^535 Invalid username or password/);
    });
  }
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
