import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A real webhook receiver on 127.0.0.1 for the tests, with its own Standard Webhooks verification (written from the
 * specification, not from src/webhooks): it records every request, and answers what `mode` says.
 */

export type Mode = 'ok' | 'fail' | 'hang';

export interface Received {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
  /** What the receiver was doing when it came. */
  readonly mode: Mode;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  mode: Mode;
  /** Requests seen while hanging (their sockets stay open). */
  hanging: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      receiver.received.push({
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        headers: req.headers,
        mode: receiver.mode,
      });
      if (receiver.mode === 'hang') {
        receiver.hanging++;
        held.add(res);
        return;
      }
      res.statusCode = receiver.mode === 'ok' ? 204 : 503;
      res.end(receiver.mode === 'ok' ? '' : 'down for maintenance');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    received: [],
    mode: 'ok',
    hanging: 0,
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/**
 * Standard Webhooks verification: the key is the base64 after `whsec_`; the signed content is
 * `${id}.${timestamp}.${body}`; the header holds space-separated `v1,<base64 HMAC-SHA256>` signatures, one must match.
 */
export function verify(secret: string, message: Received, toleranceSeconds = 300): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${message.id}.${message.timestamp}.${message.body}`).digest();
  const age = Math.abs(Date.now() / 1000 - Number(message.timestamp));
  if (!/^\d+$/.test(message.timestamp) || age > toleranceSeconds) return false;
  return message.signature.split(' ').some((part) => {
    const [version, value] = part.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
