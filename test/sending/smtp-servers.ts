import { after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { createTransport, SendFailure, type RawMessage, type Transport } from '../../src/sending/transport.js';

/*
 * For the SMTP client's tests: smtp-server instances set up the way each case needs, transports to them, and
 * everything closed when the test file ends.
 */

export { cert, key } from './tls-fixture.js';

export interface Received {
  readonly from: string;
  readonly to: string[];
  readonly raw: Buffer;
  readonly secure: boolean;
  readonly user: string | undefined;
}

export interface TestServer {
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

export async function startServer(options: SMTPServerOptions = {}): Promise<TestServer> {
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

export function transportFor(url: string, tls?: { ca?: Buffer }): Transport {
  const transport = createTransport({ smtpUrl: url, dataDir: '/nonexistent' }, { tls });
  transports.push(transport);
  return transport;
}

export function mail(to: string, ...chunks: string[]): RawMessage {
  return { from: 'bounces@example.com', to, raw: chunks.map((c) => Buffer.from(c, 'utf8')) };
}

export async function refusal(promise: Promise<unknown>): Promise<SendFailure> {
  const err = await promise.then(
    () => assert.fail('the send should have failed'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof SendFailure, String(err));
  return err;
}

export const HEAD = 'From: news@example.com\r\nTo: reader@example.com\r\nSubject: Hello\r\n\r\n';
