import { SMTPServer } from 'smtp-server';
import type { ParsedMail } from 'mailparser';
import { createServer, type AddressInfo } from 'node:net';

export interface ReceivedMail {
  readonly envelope: { from: string; to: string[] };
  readonly raw: Buffer;
  readonly parsed: ParsedMail;
}

export interface SmtpSink {
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Resolves when at least `count` messages have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Makes the next `n` recipients fail with this SMTP reply code (e.g. 450 temporary, 550 permanent). */
  failNext(n: number, code: number, message?: string): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback that keeps and parses every message it is given; on a free port unless `port`
 * names one (a server that comes back where the service expects it).
 */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  let failures: { remaining: number; code: number; message: string } | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 50 * 1024 * 1024,
    onRcptTo(_address, _session, callback) {
      if (failures && failures.remaining > 0) {
        failures.remaining--;
        const err = Object.assign(new Error(failures.message), { responseCode: failures.code });
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        // Loaded by the first mail: most test files receive none, and loading it is 250 ms of CPU.
        const { simpleParser } = await import('mailparser');
        const parsed = await simpleParser(raw);
        messages.push({
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          raw,
          parsed,
        });
        waiters.splice(0).forEach((w) => w());
        callback();
      });
    },
  });
  // A client that goes away mid-session (a worker killed with -9) resets its connection; that is the client's doing.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${bound}/?tls=off`,
    messages,
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`SMTP sink: expected ${count} messages, got ${messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return messages.slice(0, count);
    },
    failNext(n, code, message = 'Failure injected by the test') {
      failures = { remaining: n, code, message };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nobody listens on (it was free a moment ago): for an SMTP server that cannot be reached. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
