import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { convert } from 'html-to-text';
import nodemailer from 'nodemailer';
import { smtpPoolOptions } from '../src/mail/mailer.js';
import type { JobFigures } from './scenario.js';
import { SMTP_POOL } from './sending.campaign.js';
import { ATTACHMENT_BYTES, ATTACHMENT_NAME, FOOTER, FROM, SUBJECT, TEMPLATE, newsletterBody } from './sending.seeds.js';
import { cpuSeconds } from './sending.processes.js';
import { startSinkProcess } from './smtp-sink.js';

/*
 * The yardsticks for the campaign sender: nodemailer alone, in the driver process, sending the campaign's kind of
 * message (the same HTML with the recipient's values put in, a plain-text part, the 40 KB attachment) through a
 * pooled SMTP transport (the service's pool options) into the same sink process. Either nodemailer composes every
 * message, or it is handed raw MIME built before the clock starts. Rate: first to last message the sink accepted.
 */

export const BARE_MESSAGES = Number(process.env.BENCH_SEND_BARE_MESSAGES ?? 20_000);
const WARMUP_MESSAGES = 1000;
/** Messages in flight at once: SEND_CONCURRENCY's default. */
const IN_FLIGHT = 64;
/** Distinct prebuilt raw messages, cycled (one per recipient would be 1.3 GB). */
const RAW_DISTINCT = 100;
const CITIES = ['Oslo', 'Zürich', 'Lyon', 'Kraków', 'Porto'];

const html = TEMPLATE.replace('[SUBJECT]', SUBJECT).replace('[CONTENT]', newsletterBody()).replace('[FOOTER]', FOOTER);
const text = convert(html, { wordwrap: 78 });

/** The recipient's values where the campaign has placeholders: cheap string replacement. */
function personalise(source: string, n: number, address: string): string {
  return source
    .replaceAll('[FIRST NAME%%there]', n % 10 === 0 ? 'there' : `Reader ${n}`)
    .replaceAll('[FIRST NAME%%reader]', n % 10 === 0 ? 'reader' : `Reader ${n}`)
    .replaceAll('[CITY%%your town]', CITIES[n % CITIES.length]!)
    .replaceAll('[EMAIL]', address)
    .replaceAll('[UNSUBSCRIBE]', `https://lists.example.com/api/v2/unsubscribe/${n.toString(16).padStart(32, '0')}`);
}

/** Calls `send(i)` for i in [first, first + count) with IN_FLIGHT at a time. */
async function pump(first: number, count: number, send: (i: number) => Promise<unknown>): Promise<void> {
  let next = first;
  const end = first + count;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < end) await send(next++);
    }),
  );
}

export async function runBare(mode: 'compose' | 'raw'): Promise<JobFigures> {
  const sink = await startSinkProcess(SMTP_POOL);
  const transport = nodemailer.createTransport(smtpPoolOptions(sink.url));
  const loadBefore = loadavg()[0]!;
  try {
    const attachment = randomBytes(ATTACHMENT_BYTES);
    const address = (i: number) => `bare-${i}@bench.invalid`;
    const message = (i: number) => ({
      from: FROM,
      to: address(i),
      subject: SUBJECT,
      html: personalise(html, i, address(i)),
      text: personalise(text, i, address(i)),
      attachments: [{ filename: ATTACHMENT_NAME, content: attachment, contentType: 'application/pdf' }],
      headers: { 'X-Mailroom-Campaign': '0', 'X-Mailroom-Delivery': String(i) },
    });
    let send: (i: number) => Promise<unknown>;
    if (mode === 'compose') {
      send = (i) => transport.sendMail(message(i));
    } else {
      const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
      const raws: Buffer[] = [];
      for (let i = 0; i < RAW_DISTINCT; i++) raws.push((await composer.sendMail(message(i))).message as Buffer);
      const from = /<([^>]+)>/.exec(FROM)![1]!;
      send = (i) => transport.sendMail({ envelope: { from, to: [address(i)] }, raw: raws[i % RAW_DISTINCT]! });
    }

    // Unmeasured: JIT compilation and the pool's connections.
    await pump(-WARMUP_MESSAGES, WARMUP_MESSAGES, send);
    await sink.reset();
    const cpuBefore = process.cpuUsage();
    const sinkBefore = cpuSeconds(sink.pid);
    await pump(0, BARE_MESSAGES, send);
    const cpu = process.cpuUsage(cpuBefore);
    const report = await sink.report();
    let duplicates = 0;
    for (const n of report.recipients.values()) duplicates += n - 1;
    const seconds = report.spanMs / 1000;
    const senderSeconds = (cpu.user + cpu.system) / 1e6;
    return {
      messages: report.messages,
      seconds: Math.round(seconds * 100) / 100,
      messages_per_s: Math.round(report.messages / seconds),
      sender_cpu_s: Math.round(senderSeconds * 10) / 10,
      messages_per_sender_cpu_s: Math.round(report.messages / senderSeconds),
      sink_cpu_s: sinkBefore === null ? 'unknown' : Math.round((cpuSeconds(sink.pid)! - sinkBefore) * 10) / 10,
      avg_message_kb: Math.round(report.bytes / report.messages / 102.4) / 10,
      longest_gap_ms: Math.round(report.longestGapMs),
      stalled_ms: Math.round(report.stalledMs),
      duplicate_messages: duplicates,
      missing_recipients: BARE_MESSAGES - report.recipients.size,
      load_average_before: Math.round(loadBefore * 100) / 100,
      load_average_after: Math.round(loadavg()[0]! * 100) / 100,
    };
  } finally {
    transport.close();
    await sink.stop();
  }
}
