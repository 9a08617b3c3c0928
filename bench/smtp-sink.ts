import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';

/*
 * The sending benches' mail server: an SMTP sink (smtp-server) as a process of its own, so that neither the process
 * being measured nor the driver pays for receiving. It parses no MIME: per message it looks at the header block only
 * (a byte search for X-Mailroom-Delivery) and lets the rest stream past, and it counts messages per envelope
 * recipient and per delivery id. The driver talks to it over IPC: `startSinkProcess()` below.
 */

const DELIVERY_HEADER = Buffer.from('\nX-Mailroom-Delivery:', 'latin1');
const DKIM_HEADER = Buffer.from('DKIM-Signature:', 'latin1');
const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
/** A header block longer than this is not a campaign mail's; the search stops there. */
const MAX_HEAD = 256 * 1024;

/** What the driver asks. */
type Question =
  | { type: 'reset' }
  | { type: 'count' }
  /** Answered once `count` messages have been accepted (at once if they have). */
  | { type: 'when'; count: number }
  | { type: 'report' };
/** `id` pairs the answer with the question. */
type Request = Question & { id: number };

export interface SinkReport {
  /** Messages accepted since the last reset. */
  readonly messages: number;
  /** Milliseconds from the first accepted message to the last (this process's monotonic clock). */
  readonly spanMs: number;
  /** Messages per envelope recipient address. */
  readonly recipients: Map<string, number>;
  /** Messages per X-Mailroom-Delivery value. */
  readonly deliveries: Map<number, number>;
  /** Messages that had no X-Mailroom-Delivery header. */
  readonly withoutDelivery: number;
  /** Messages whose header carried a DKIM-Signature. */
  readonly signed: number;
  /** Bytes of all messages (after the SMTP dot-unstuffing). */
  readonly bytes: number;
  /** The longest time between two accepted messages, and the sum of such gaps of 100 ms or more (sender stalls). */
  readonly longestGapMs: number;
  readonly stalledMs: number;
}

type Answer = { id: number; type: 'ok'; count?: number; report?: SinkReport };

/** The delivery id in a header block, or null. Digits only; anything else is not ours. */
function deliveryIdOf(head: Buffer): number | null {
  const at = head.indexOf(DELIVERY_HEADER);
  if (at < 0) return null;
  let i = at + DELIVERY_HEADER.length;
  while (head[i] === 0x20) i++;
  let value = 0;
  let digits = 0;
  for (; head[i]! >= 0x30 && head[i]! <= 0x39; i++, digits++) value = value * 10 + head[i]! - 0x30;
  return digits > 0 ? value : null;
}

async function runSink(): Promise<void> {
  const send = (message: Answer | { type: 'ready'; port: number }) => process.send?.(message);
  let messages = 0;
  let first = 0;
  let last = 0;
  let recipients = new Map<string, number>();
  let deliveries = new Map<number, number>();
  let withoutDelivery = 0;
  let signed = 0;
  let bytes = 0;
  let longestGapMs = 0;
  let stalledMs = 0;
  let waiting: { id: number; count: number }[] = [];

  const accepted = (to: readonly string[], delivery: number | null) => {
    const now = performance.now();
    if (messages === 0) first = now;
    else {
      const gap = now - last;
      if (gap > longestGapMs) longestGapMs = gap;
      if (gap >= 100) stalledMs += gap;
    }
    last = now;
    messages++;
    for (const address of to) recipients.set(address, (recipients.get(address) ?? 0) + 1);
    if (delivery === null) withoutDelivery++;
    else deliveries.set(delivery, (deliveries.get(delivery) ?? 0) + 1);
    if (waiting.length > 0 && waiting.some((w) => w.count <= messages)) {
      for (const w of waiting.filter((w) => w.count <= messages)) send({ id: w.id, type: 'ok', count: messages });
      waiting = waiting.filter((w) => w.count > messages);
    }
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    banner: 'mailroom bench sink',
    onData(stream, session, callback) {
      let head: Buffer | null = Buffer.alloc(0);
      let delivery: number | null = null;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (head === null) return;
        // The blank line may straddle two chunks: search the header bytes so far plus this chunk.
        const joined = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
        const end = joined.indexOf(HEADER_END);
        if (end >= 0 || joined.length > MAX_HEAD) {
          delivery = deliveryIdOf(end >= 0 ? joined.subarray(0, end + 2) : joined);
          if (joined.subarray(0, end >= 0 ? end : joined.length).includes(DKIM_HEADER)) signed++;
          head = null;
        } else {
          head = Buffer.from(joined);
        }
      });
      stream.on('end', () => {
        if (head !== null) delivery = deliveryIdOf(head);
        accepted(
          session.envelope.rcptTo.map((r) => r.address),
          delivery,
        );
        callback(null, 'Queued');
      });
    },
  });

  // A client that goes away mid-session (a worker killed with -9) is part of what the benches do, not a failure.
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') console.error('bench SMTP sink:', err.message);
  });

  process.on('message', (request: Request) => {
    switch (request.type) {
      case 'reset':
        messages = withoutDelivery = signed = bytes = first = last = longestGapMs = stalledMs = 0;
        recipients = new Map();
        deliveries = new Map();
        send({ id: request.id, type: 'ok' });
        break;
      case 'count':
        send({ id: request.id, type: 'ok', count: messages });
        break;
      case 'when':
        if (messages >= request.count) send({ id: request.id, type: 'ok', count: messages });
        else waiting.push({ id: request.id, count: request.count });
        break;
      case 'report':
        send({
          id: request.id,
          type: 'ok',
          report: { messages, spanMs: last - first, recipients, deliveries, withoutDelivery, signed, bytes, longestGapMs, stalledMs },
        });
        break;
    }
  });
  // The driver going away (or closing the channel) ends the sink: it never outlives its bench.
  process.on('disconnect', () => process.exit(0));

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  send({ type: 'ready', port: (server.server.address() as AddressInfo).port });
}

/** The driver's handle on a sink process. */
export interface SinkProcess {
  readonly pid: number;
  /** `smtp://127.0.0.1:<port>/?tls=off&pool=<pool>`, for SMTP_URL or smtpPoolOptions. */
  readonly url: string;
  reset(): Promise<void>;
  count(): Promise<number>;
  /** Resolves when `count` messages have been accepted since the last reset; rejects if the sink exits first. */
  when(count: number): Promise<number>;
  report(): Promise<SinkReport>;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** Starts the sink as its own process; `pool` is the connections per sender that the URL asks for. */
export async function startSinkProcess(pool: number): Promise<SinkProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/smtp-sink.ts'], {
    cwd: root,
    stdio: ['ignore', 2, 2, 'ipc'],
    // Structured clone: the report's maps cross as maps.
    serialization: 'advanced',
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  let gone: Error | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      gone = new Error(`the SMTP sink exited (code ${code}, signal ${signal})`);
      for (const p of pending.values()) p.reject(gone);
      pending.clear();
      resolve();
    });
  });
  const ready = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the SMTP sink did not start within 30 s')), 30_000);
    child.once('exit', () => reject(gone));
    child.on('message', (message: Answer | { type: 'ready'; port: number }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.port);
        return;
      }
      const p = pending.get(message.id);
      pending.delete(message.id);
      p?.resolve(message);
    });
  });
  const ask = (request: Question): Promise<Answer> =>
    new Promise((resolve, reject) => {
      if (gone) return reject(gone);
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      child.send({ ...request, id });
    });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  let port: number;
  try {
    port = await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    pid: child.pid!,
    url: `smtp://127.0.0.1:${port}/?tls=off&pool=${pool}`,
    reset: async () => void (await ask({ type: 'reset' })),
    count: async () => (await ask({ type: 'count' })).count!,
    when: async (count) => (await ask({ type: 'when', count })).count!,
    report: async () => (await ask({ type: 'report' })).report!,
    stop,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runSink().catch((err: unknown) => {
    console.error('bench SMTP sink failed:', err);
    process.exit(1);
  });
}
