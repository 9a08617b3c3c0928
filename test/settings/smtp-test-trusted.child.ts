import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startTestApp } from '../helper.js';
import { cert, key } from '../sending/tls-fixture.js';

/*
 * Run by smtp-test.test.ts with NODE_EXTRA_CA_CERTS naming the fixture's certificate: this process trusts it as an
 * operator's machine trusts its relay's CA, so Test connection goes through STARTTLS to AUTH and the test mail. Node
 * reads that variable once, at start-up, hence a process of its own. Prints what the API answered and what the
 * server saw.
 */

const received: { secure: boolean; user: string | undefined; to: string[] }[] = [];
const server = new SMTPServer({
  key,
  cert,
  logger: false,
  authOptional: false,
  authMethods: ['PLAIN', 'LOGIN'],
  onAuth(auth, _session, callback) {
    if (auth.username === 'mailer' && auth.password === 'right-Pa55') callback(null, { user: auth.username });
    else callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
  },
  onData(stream, session, callback) {
    stream.resume();
    stream.on('end', () => {
      received.push({ secure: session.secure, user: session.user as string | undefined, to: session.envelope.rcptTo.map((r) => r.address) });
      callback();
    });
  },
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.server.address() as AddressInfo).port;

const t = await startTestApp({ settingsFromEnv: [], webhookAllowPrivate: true });
const { headers } = await t.adminWithSession();
const res = await t.inject({
  method: 'POST',
  url: '/api/v2/settings/smtp-test',
  headers,
  payload: { server: { url: `smtp://mailer@127.0.0.1:${port}`, password: 'right-Pa55' }, send_to: 'operator@example.org' },
});
process.stdout.write(JSON.stringify({ port, status: res.statusCode, body: res.json(), received }));
await t.close();
await new Promise<void>((resolve) => server.close(() => resolve()));
