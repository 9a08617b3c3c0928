import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closedPort } from '../smtp-sink.js';
import { cert, HEAD, key, mail, refusal, startServer, transportFor } from './smtp-servers.js';

/*
 * The bulk SMTP client's answers to refusals at every step of a session, and its TLS and logins, against real
 * smtp-server instances.
 */

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
    assert.deepEqual(
      server.received.map((m) => m.to[0]),
      ['fine@example.com'],
    );
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
    assert.deepEqual(
      server.received.map((m) => m.to),
      [['c@example.com']],
    );
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
    const transport = transportFor(`smtp://127.0.0.1:${await closedPort()}/?tls=off&pool=2`);
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
