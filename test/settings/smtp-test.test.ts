import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { startTestApp, type TestApp } from '../helper.js';
import { cert, key, startServer } from '../sending/smtp-servers.js';
import { CERT_PATH } from '../sending/tls-fixture.js';
import { siblingArgs } from '../process.js';

/*
 * Test connection (issue 26): one SMTP session reported step by step with the server's answers, against real
 * servers on loopback (the allow-list hook WEBHOOK_ALLOW_PRIVATE lets the test reach them), and refused on loopback
 * when the operator's allow-list does not permit it.
 */

const smtpTest = (t: TestApp, headers: Record<string, string>, payload: object) =>
  t.inject({ method: 'POST', url: '/api/v2/settings/smtp-test', headers, payload });

describe('Test connection, private addresses allowed', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  before(async () => {
    t = await startTestApp({ settingsFromEnv: [], webhookAllowPrivate: true });
    headers = (await t.adminWithSession()).headers;
  });
  after(async () => t?.close());

  test('a plain server without AUTH: each step with its answer, and a test mail the server received', async () => {
    const res = await smtpTest(t, headers, { send_to: 'operator@example.org' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.ok, true);
    assert.equal(body.server, t.smtp.url);
    assert.deepEqual(
      body.steps.map((s: { step: string; ok: boolean }) => [s.step, s.ok]),
      [
        ['connect', true],
        ['greeting', true],
        ['ehlo', true],
        ['starttls', true],
        ['mail', true],
      ],
    );
    assert.match(body.steps[0].detail, /^Connected to 127\.0\.0\.1:\d+\.$/);
    assert.match(body.steps[1].detail, /^220 /);
    assert.match(body.steps[2].detail, /^250 /);
    assert.equal(body.steps[3].detail, 'Not used: the URL says ?tls=off.');
    assert.match(body.steps[4].detail, /^Test message to operator@example\.org accepted: 250 /);
    const [mail] = await t.smtp.waitFor(1);
    assert.deepEqual(mail!.envelope, { from: 'mailroom@localhost', to: ['operator@example.org'] });
    assert.equal(mail!.parsed.subject, 'Mailroom: test message');
  });

  test('AUTH: the login accepted, then a wrong password refused with the server’s answer; the password is never echoed', async () => {
    const server = await startServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: false,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 'right-Pa55') callback(null, { user: auth.username });
        else callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
      },
    });
    const url = `smtp://mailer@127.0.0.1:${server.port}?tls=off`;
    const good = (await smtpTest(t, headers, { server: { url, password: 'right-Pa55' } })).json();
    assert.equal(good.ok, true, JSON.stringify(good));
    assert.deepEqual(good.steps.at(-1), { step: 'auth', ok: true, detail: 'Logged in as mailer: 235 Authentication successful' });

    const bad = await smtpTest(t, headers, { server: { url, password: 'wrong-Pa55' } });
    assert.ok(!bad.body.includes('wrong-Pa55'));
    assert.equal(bad.json().ok, false);
    assert.deepEqual(bad.json().steps.at(-1), { step: 'auth', ok: false, detail: 'Login as mailer refused: 535 Authentication credentials invalid' });
  });

  test('a login is not sent in clear to a server without STARTTLS unless the URL says ?tls=off', async () => {
    const server = await startServer({ disabledCommands: ['STARTTLS'], authOptional: false, allowInsecureAuth: true, authMethods: ['PLAIN'] });
    const body = (await smtpTest(t, headers, { server: { url: `smtp://mailer@127.0.0.1:${server.port}`, password: 'x' } })).json();
    assert.equal(body.ok, false);
    assert.deepEqual(body.steps.at(-1), {
      step: 'starttls',
      ok: false,
      detail: 'The server offers no STARTTLS: the login is not sent in clear (add ?tls=off to allow it on a trusted network).',
    });
  });

  test('STARTTLS: the TLS version is reported, and a certificate not trusted for the host stops the test before AUTH', async () => {
    const server = await startServer({ key, cert, authOptional: true });
    const body = (await smtpTest(t, headers, { server: { url: `smtp://mailer@127.0.0.1:${server.port}`, password: 'x' } })).json();
    assert.equal(body.ok, false);
    const last = body.steps.at(-1);
    assert.equal(last.step, 'starttls');
    assert.match(last.detail, /^TLSv1\.[23], but the certificate is not trusted for 127\.0\.0\.1: \S+/);
    assert.ok(!body.steps.some((s: { step: string }) => s.step === 'auth'));
  });

  test('STARTTLS with a certificate the machine trusts: then EHLO again, AUTH, and the test mail over TLS as that user', async () => {
    // Node reads NODE_EXTRA_CA_CERTS at start-up only: the trusted case runs in a process of its own (the .child file).
    const { stdout } = await promisify(execFile)(process.execPath, siblingArgs(import.meta.url, './smtp-test-trusted.child'), {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: CERT_PATH },
      timeout: 60_000,
    });
    const { port, status, body, received } = JSON.parse(stdout);
    assert.equal(status, 200);
    const ehlo = (detail: string) => detail.startsWith('250 ') && detail.includes('AUTH PLAIN LOGIN');
    assert.deepEqual(
      body.steps.map((s: { step: string; ok: boolean; detail: string }) => [s.step, s.ok, s.step === 'ehlo' ? ehlo(s.detail) : s.detail]),
      [
        ['connect', true, `Connected to 127.0.0.1:${port}.`],
        ['greeting', true, body.steps[1].detail],
        ['ehlo', true, true],
        ['starttls', true, body.steps[3].detail],
        ['ehlo', true, true],
        ['auth', true, 'Logged in as mailer: 235 Authentication successful'],
        ['mail', true, 'Test message to operator@example.org accepted: 250 OK: message queued'],
      ],
    );
    assert.match(body.steps[1].detail, /^220 /);
    assert.match(body.steps[3].detail, /^TLSv1\.[23]; the certificate is trusted for 127\.0\.0\.1\.$/);
    assert.equal(body.ok, true);
    assert.deepEqual(received, [{ secure: true, user: 'mailer', to: ['operator@example.org'] }]);
  });

  test('implicit TLS (smtps): the tls step reports the version before the greeting', async () => {
    const server = new SMTPServer({ key, cert, secure: true, logger: false, disabledCommands: ['AUTH'] });
    // The test hangs up once the handshake is done, which the server reports as an error of its own.
    server.on('error', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    const body = (await smtpTest(t, headers, { server: { url: `smtps://127.0.0.1:${port}` } })).json();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    assert.deepEqual(
      body.steps.map((s: { step: string; ok: boolean }) => [s.step, s.ok]),
      [
        ['connect', true],
        ['tls', false],
      ],
    );
    assert.match(body.steps[1].detail, /^TLSv1\.[23], but the certificate is not trusted/);
  });

  test('nothing listening: the connect step says so', async () => {
    const server = await startServer();
    const port = server.port;
    await server.close();
    const body = (await smtpTest(t, headers, { server: { url: `smtp://127.0.0.1:${port}?tls=off` } })).json();
    assert.deepEqual(body, {
      ok: false,
      server: `smtp://127.0.0.1:${port}?tls=off`,
      steps: [{ step: 'connect', ok: false, detail: `Could not connect to 127.0.0.1:${port} (ECONNREFUSED).` }],
    });
  });

  test('bad input: 422 naming the field', async () => {
    const res = await smtpTest(t, headers, { server: { url: 'smtp://relay.example.org?tls=sometimes' } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), { message: 'Validation failed', errors: { 'server.url': ['?tls= takes off or required, got "sometimes".'] } });
    const to = await smtpTest(t, headers, { send_to: 'nobody' });
    assert.deepEqual(to.json(), { message: 'Validation failed', errors: { send_to: ['This value is not a valid email address.'] } });
  });
});

describe('Test connection, private addresses refused (the default)', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  before(async () => {
    t = await startTestApp({ settingsFromEnv: [] });
    headers = (await t.adminWithSession()).headers;
  });
  after(async () => t?.close());

  for (const host of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '[::1]', 'localhost']) {
    test(`${host}: refused before any connection`, async () => {
      const body = (await smtpTest(t, headers, { server: { url: `smtp://${host}:${2525}?tls=off` } })).json();
      assert.equal(body.ok, false);
      assert.equal(body.steps.length, 1);
      assert.equal(body.steps[0].step, 'address');
      assert.match(body.steps[0].detail, /is not a public address .*unless WEBHOOK_ALLOW_PRIVATE=1\.$/);
    });
  }

  test('the configured server (the sink on loopback) is refused too, and receives nothing', async () => {
    const body = (await smtpTest(t, headers, { send_to: 'operator@example.org' })).json();
    assert.equal(body.steps[0].step, 'address');
    assert.equal(body.ok, false);
    assert.equal(t.smtp.messages.length, 0);
  });
});
