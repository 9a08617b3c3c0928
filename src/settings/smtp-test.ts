import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { resolvePublic } from '../shared/public-address.js';
import type { SmtpTestResult, SmtpTestStep } from './settings.schemas.js';

/*
 * "Test connection" (issue 26): one SMTP session, step by step, reporting what the server answered at each — the
 * address, the connection, TLS (version and whether the certificate is trusted for the host), the greeting, EHLO,
 * STARTTLS, AUTH, and optionally a test mail — then QUIT. Its own small client rather than nodemailer's, whose
 * errors say what failed but not what was said before. A password is sent only over TLS whose certificate checked
 * out, or over a connection the URL says is plain (`?tls=off`), as the mailer does.
 */

/** How long each answer may take. */
export const STEP_TIMEOUT_MS = 10_000;
/** The most of a server's answer reported per step. */
const ANSWER_KEPT = 500;

export interface SmtpTestInput {
  /** The server's URL, password included. */
  readonly url: string;
  /** Private, loopback and link-local addresses allowed (WEBHOOK_ALLOW_PRIVATE: the operator's allow-list). */
  readonly allowPrivate: boolean;
  /** The EHLO name and the test mail's From. */
  readonly from: string;
  readonly sendTo?: string;
}

interface Reply {
  readonly code: number;
  readonly text: string;
}

class StepFailed extends Error {}

/** Runs the session; never throws: a failure is the last step, `ok: false`. */
export async function testSmtpServer(input: SmtpTestInput): Promise<SmtpTestResult> {
  const url = new URL(input.url);
  const shown = withoutPassword(url);
  const steps: SmtpTestStep[] = [];
  const session = new Session();
  try {
    await run(url, input, steps, session);
    return { ok: true, server: shown, steps };
  } catch (err) {
    if (!(err instanceof StepFailed)) steps.push({ step: 'connect', ok: false, detail: 'The test stopped unexpectedly.' });
    return { ok: false, server: shown, steps };
  } finally {
    session.close();
  }
}

/** The URL as it may be shown: no password. */
export function withoutPassword(url: URL): string {
  const copy = new URL(url.href);
  copy.password = '';
  return copy.href;
}

async function run(url: URL, input: SmtpTestInput, steps: SmtpTestStep[], session: Session): Promise<void> {
  const pass = (step: SmtpTestStep['step'], detail: string) => steps.push({ step, ok: true, detail });
  const fail = (step: SmtpTestStep['step'], detail: string): never => {
    steps.push({ step, ok: false, detail });
    throw new StepFailed(detail);
  };
  const secure = url.protocol === 'smtps:';
  const tlsMode = url.searchParams.get('tls');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || (secure ? 465 : 587);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);

  let address = host;
  if (!input.allowPrivate) {
    try {
      address = (await resolvePublic(host, { allowLoopback: false })).address;
    } catch {
      fail(
        'address',
        `${host} is not a public address (or does not resolve to public addresses only): loopback, private and link-local addresses are refused unless WEBHOOK_ALLOW_PRIVATE=1.`,
      );
    }
    pass('address', `${host} is ${address}.`);
  }

  try {
    await session.open(address, port);
  } catch (err) {
    fail('connect', `Could not connect to ${host}:${port} (${errorCode(err)}).`);
  }
  pass('connect', `Connected to ${address}:${port}.`);

  if (secure) {
    const result = await session.startTls(host).catch((err: unknown) => fail('tls', `TLS handshake failed (${errorCode(err)}).`));
    if (!result.trusted) fail('tls', `${result.protocol}, but the certificate is not trusted for ${host}: ${result.reason}.`);
    pass('tls', `${result.protocol}; the certificate is trusted for ${host}.`);
  }

  const greeting = await session.reply().catch((err: unknown) => fail('greeting', noAnswer(err)));
  if (greeting.code !== 220) fail('greeting', `The server refused the session: ${greeting.text}`);
  pass('greeting', greeting.text);

  const name = input.from.replace(/^.*@/, '').replace(/[>\s].*$/, '') || 'localhost';
  let ehlo = await session.command(`EHLO ${name}`).catch((err: unknown) => fail('ehlo', noAnswer(err)));
  if (ehlo.code !== 250) fail('ehlo', `EHLO refused: ${ehlo.text}`);
  pass('ehlo', ehlo.text);

  if (!secure) {
    const offered = capabilities(ehlo).has('STARTTLS');
    if (tlsMode === 'off') {
      pass('starttls', 'Not used: the URL says ?tls=off.');
    } else if (!offered) {
      if (tlsMode === 'required') fail('starttls', 'The server offers no STARTTLS, and the URL says ?tls=required.');
      if (user) fail('starttls', 'The server offers no STARTTLS: the login is not sent in clear (add ?tls=off to allow it on a trusted network).');
      pass('starttls', 'Not offered by the server: mail would go in clear.');
    } else {
      const answer = await session.command('STARTTLS').catch((err: unknown) => fail('starttls', noAnswer(err)));
      if (answer.code !== 220) fail('starttls', `STARTTLS refused: ${answer.text}`);
      const result = await session.startTls(host).catch((err: unknown) => fail('starttls', `TLS handshake failed (${errorCode(err)}).`));
      if (!result.trusted) fail('starttls', `${result.protocol}, but the certificate is not trusted for ${host}: ${result.reason}.`);
      pass('starttls', `${result.protocol}; the certificate is trusted for ${host}.`);
      ehlo = await session.command(`EHLO ${name}`).catch((err: unknown) => fail('ehlo', noAnswer(err)));
      if (ehlo.code !== 250) fail('ehlo', `EHLO over TLS refused: ${ehlo.text}`);
      pass('ehlo', ehlo.text);
    }
  }

  if (user) {
    const methods = capabilities(ehlo).get('AUTH') ?? '';
    const plain = `\0${user}\0${password}`;
    const attempt = /\bPLAIN\b/i.test(methods)
      ? session.command(`AUTH PLAIN ${Buffer.from(plain).toString('base64')}`)
      : /\bLOGIN\b/i.test(methods)
        ? session.login(user, password)
        : fail('auth', `The server offers no login method Mailroom speaks (PLAIN, LOGIN): ${methods || 'none offered'}.`);
    const answer = await attempt.catch((err: unknown) => fail('auth', noAnswer(err)));
    if (answer.code !== 235) fail('auth', `Login as ${user} refused: ${answer.text}`);
    pass('auth', `Logged in as ${user}: ${answer.text}`);
  }

  if (input.sendTo) {
    const envelopeFrom = input.from.replace(/^.*</, '').replace(/>.*$/, '').trim();
    for (const [line, expected] of [
      [`MAIL FROM:<${envelopeFrom}>`, 250],
      [`RCPT TO:<${input.sendTo}>`, 250],
      ['DATA', 354],
    ] as const) {
      const answer = await session.command(line).catch((err: unknown) => fail('mail', noAnswer(err)));
      if (answer.code !== expected) fail('mail', `${line.split(':')[0]} refused: ${answer.text}`);
    }
    const message = await new MailComposer({
      from: input.from,
      to: input.sendTo,
      subject: 'Mailroom: test message',
      text: 'This message was sent by the Test connection button of Mailroom’s settings. The SMTP server works.\n',
    })
      .compile()
      .build();
    const stuffed = message.toString('utf8').replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
    const answer = await session.command(`${stuffed}\r\n.`).catch((err: unknown) => fail('mail', noAnswer(err)));
    if (answer.code !== 250) fail('mail', `The message was refused: ${answer.text}`);
    pass('mail', `Test message to ${input.sendTo} accepted: ${answer.text}`);
  }
  await session.command('QUIT').catch(() => undefined);
}

/** EHLO's keywords, each with the rest of its line (AUTH's methods). */
function capabilities(ehlo: Reply): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of ehlo.text.split('\n').slice(1)) {
    const [keyword = '', ...rest] = line.trim().split(' ');
    out.set(keyword.toUpperCase(), rest.join(' '));
  }
  return out;
}

function errorCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? 'unknown error';
}

function noAnswer(err: unknown): string {
  return err instanceof Error && err.message === 'timeout'
    ? `No answer within ${STEP_TIMEOUT_MS / 1000} s.`
    : `The connection ended (${errorCode(err)}).`;
}

/** One socket, plain then perhaps TLS, read reply by reply. */
class Session {
  private socket: Socket | TLSSocket | null = null;
  private buffer = '';
  private waiting: (() => void) | null = null;
  private ended: Error | null = null;

  open(address: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host: address, port, timeout: STEP_TIMEOUT_MS });
      socket.once('connect', () => {
        socket.setTimeout(0);
        this.attach(socket);
        resolve();
      });
      socket.once('timeout', () => {
        socket.destroy();
        reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
      });
      socket.once('error', reject);
    });
  }

  /** Upgrades the connection; what the server sent in clear before is dropped (RFC 3207 §4.2). */
  startTls(host: string): Promise<{ protocol: string; trusted: boolean; reason: string }> {
    const plain = this.socket!;
    plain.removeAllListeners('data');
    plain.removeAllListeners('end');
    plain.removeAllListeners('error');
    this.buffer = '';
    return new Promise((resolve, reject) => {
      // Verified below, so that an untrusted certificate is reported with the TLS version rather than as a bare error.
      const secure = tlsConnect({ socket: plain, servername: isIP(host) ? undefined : host, rejectUnauthorized: false });
      const timer = setTimeout(() => {
        secure.destroy();
        reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
      }, STEP_TIMEOUT_MS);
      secure.once('secureConnect', () => {
        clearTimeout(timer);
        this.attach(secure);
        const protocol = secure.getProtocol() ?? 'TLS';
        const authorizationError = secure.authorizationError ? String(secure.authorizationError) : '';
        resolve({ protocol, trusted: secure.authorized, reason: authorizationError || 'not verified' });
      });
      secure.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** Sends a line and reads the answer. */
  async command(line: string): Promise<Reply> {
    this.socket!.write(`${line}\r\n`);
    return this.reply();
  }

  /** AUTH LOGIN: the user name and the password each answer a 334. */
  async login(user: string, password: string): Promise<Reply> {
    const first = await this.command('AUTH LOGIN');
    if (first.code !== 334) return first;
    const second = await this.command(Buffer.from(user).toString('base64'));
    if (second.code !== 334) return second;
    return this.command(Buffer.from(password).toString('base64'));
  }

  /** The next complete reply: lines `NNN-…` up to the `NNN …` one. */
  async reply(): Promise<Reply> {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      const complete = this.takeReply();
      if (complete) return complete;
      if (this.ended) throw this.ended;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timeout');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close(): void {
    this.socket?.destroy();
  }

  private attach(socket: Socket | TLSSocket): void {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      // A server that talks without end is cut off rather than buffered.
      if (this.buffer.length < 64 * 1024) this.buffer += chunk;
      this.wake();
    });
    socket.on('end', () => this.stop(Object.assign(new Error('closed'), { code: 'closed by the server' })));
    socket.on('error', (err) => this.stop(err));
  }

  private stop(err: Error): void {
    this.ended ??= err;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  private takeReply(): Reply | null {
    const lines: string[] = [];
    let offset = 0;
    for (;;) {
      const end = this.buffer.indexOf('\n', offset);
      if (end < 0) return null;
      const line = this.buffer.slice(offset, end).replace(/\r$/, '');
      offset = end + 1;
      lines.push(line);
      if (!/^\d{3}-/.test(line)) {
        this.buffer = this.buffer.slice(offset);
        const code = Number(line.slice(0, 3));
        const text = lines.map((l) => l.slice(4)).join('\n');
        return { code: Number.isInteger(code) ? code : 0, text: `${line.slice(0, 3)} ${text}`.slice(0, ANSWER_KEPT) };
      }
    }
  }
}
