import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { connect as connectTls, type ConnectionOptions as TlsOptions, type TLSSocket } from 'node:tls';
import { dataSection } from './data.js';
import { ReplyReader, type ProtocolError, type SmtpReply } from './reply.js';

/*
 * One SMTP session to one server, for bulk mail: connect (TLS at once for smtps, STARTTLS when offered), EHLO, AUTH,
 * then any number of transactions. With PIPELINING the envelope and DATA go out in one write, and the message's
 * buffers are written as they are (see data.ts). One transaction at a time; the pool runs many sessions.
 */

export interface SmtpServerOptions {
  readonly host: string;
  readonly port: number;
  /** TLS from the first byte (smtps, port 465). */
  readonly secure: boolean;
  /** Never upgrade with STARTTLS (a plain local relay or sink); the only way a login may go without TLS. */
  readonly ignoreTls: boolean;
  /** `?tls=required`: no mail without TLS; a server that offers no STARTTLS is refused. */
  readonly requireTls?: boolean;
  readonly auth?: { readonly user: string; readonly pass: string };
  /** Extra TLS settings (a private CA, say). Certificates are verified unless these say otherwise. */
  readonly tls?: TlsOptions;
  readonly connectionTimeoutMs: number;
  /** No byte from the server for this long while waiting for a reply: the session is given up. */
  readonly socketTimeoutMs: number;
  /**
   * Reply deadlines (RFC 5321 §4.5.3.2 gives each wait its own): the greeting, each command (EHLO, STARTTLS, AUTH,
   * MAIL, RCPT, DATA, RSET), and the reply to the end of the data, counted from when the last byte was handed to
   * the socket. Unlike the socket's idle timeout, a server that trickles bytes cannot stretch them.
   */
  readonly greetingTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly dataTimeoutMs: number;
}

/** Where in the session a reply or an error came from; a refusal of the connection is not the recipient's fault. */
export type SmtpStage = 'connect' | 'greeting' | 'ehlo' | 'starttls' | 'auth' | 'mail' | 'rcpt' | 'data' | 'message';

export class SmtpError extends Error {
  constructor(
    message: string,
    readonly stage: SmtpStage,
    /** The server's reply, when it gave one. */
    readonly reply?: SmtpReply,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SmtpError';
  }
}

interface Waiter {
  /** What the reply answers: a session lost while waiting for it failed at that stage. */
  readonly stage: SmtpStage;
  resolve(reply: SmtpReply): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | null;
}

/** Addresses are ASCII unless they need SMTPUTF8 (RFC 6531). */
const NON_ASCII = /[^\x20-\x7e]/;
const UNSAFE_ADDRESS = /[\r\n<>]/;

/** What to say after EHLO: a host name with a dot, else the address literal of our end of the socket. */
function heloName(socket: Socket): string {
  const name = hostname();
  if (name.includes('.')) return name;
  const address = socket.localAddress ?? '127.0.0.1';
  return isIP(address) === 6 ? `[IPv6:${address}]` : `[${address}]`;
}

export class SmtpConnection {
  private socket: Socket | TLSSocket;
  private reader = new ReplyReader();
  /** Set while STARTTLS awaits its answer: whatever the server sends after that answer, in clear, is thrown away. */
  private switchingToTls = false;
  private secured: boolean;
  private readonly waiting: Waiter[] = [];
  private failure: Error | null = null;
  private extensions = new Set<string>();
  private authMethods = new Set<string>();
  private closeListeners: (() => void)[] = [];

  private constructor(
    socket: Socket | TLSSocket,
    private readonly options: SmtpServerOptions,
  ) {
    this.socket = socket;
    this.secured = options.secure;
    this.listen(socket);
  }

  /** Connects and runs the session up to the first transaction. Rejects with SmtpError. */
  static async open(options: SmtpServerOptions): Promise<SmtpConnection> {
    const socket = await new Promise<Socket | TLSSocket>((resolve, reject) => {
      const onError = (err: Error) => {
        socket.destroy();
        reject(new SmtpError(`Could not connect to ${options.host}:${options.port}: ${err.message}`, 'connect', undefined, { cause: err }));
      };
      const socket: Socket | TLSSocket = options.secure
        ? connectTls({ host: options.host, port: options.port, servername: isIP(options.host) ? undefined : options.host, ...options.tls }, () =>
            done(),
          )
        : connectTcp({ host: options.host, port: options.port }, () => done());
      const timer = setTimeout(() => onError(new Error(`no connection within ${options.connectionTimeoutMs} ms`)), options.connectionTimeoutMs);
      socket.once('error', onError);
      function done() {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(socket);
      }
    });
    const connection = new SmtpConnection(socket, options);
    try {
      await connection.start();
      return connection;
    } catch (err) {
      connection.destroy();
      throw err;
    }
  }

  /** False once the session has failed or closed: the pool drops it. */
  get usable(): boolean {
    return this.failure === null;
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /**
   * One message to one recipient. Resolves with the server's reply to the data (`250 …`); rejects with SmtpError,
   * after which the session is still usable if `usable` says so.
   */
  async send(from: string, to: string, chunks: readonly Buffer[]): Promise<string> {
    if (UNSAFE_ADDRESS.test(from) || UNSAFE_ADDRESS.test(to)) {
      // A line end in an address would let it write commands of its own.
      throw new SmtpError('An envelope address contains a line end or angle bracket.', 'mail');
    }
    const utf8 = NON_ASCII.test(from) || NON_ASCII.test(to);
    if (utf8 && !this.extensions.has('SMTPUTF8')) {
      throw new SmtpError('The server does not accept internationalised addresses (no SMTPUTF8).', 'mail');
    }
    // SIZE (RFC 1870): a server with a limit refuses an oversized message here, before a byte of it is sent.
    const size = this.extensions.has('SIZE') ? ` SIZE=${chunks.reduce((sum, chunk) => sum + chunk.length, 0)}` : '';
    const mail = `MAIL FROM:<${from}>${size}${utf8 ? ' SMTPUTF8' : ''}`;
    const rcpt = `RCPT TO:<${to}>`;
    let replies: [SmtpReply, SmtpReply, SmtpReply];
    if (this.extensions.has('PIPELINING')) {
      const pending = [this.expect('mail'), this.expect('rcpt'), this.expect('data')] as const;
      this.socket.write(`${mail}\r\n${rcpt}\r\nDATA\r\n`, 'utf8');
      replies = await Promise.all(pending);
    } else {
      const first = await this.command(mail, 'mail');
      const second = first.code === 250 ? await this.command(rcpt, 'rcpt') : first;
      const third = first.code === 250 && second.code < 300 ? await this.command('DATA', 'data') : second;
      replies = [first, second, third];
    }
    const [mailReply, rcptReply, dataReply] = replies;
    const refused: { reply: SmtpReply; stage: SmtpStage } | null =
      mailReply.code !== 250
        ? { reply: mailReply, stage: 'mail' }
        : rcptReply.code >= 300
          ? { reply: rcptReply, stage: 'rcpt' }
          : dataReply.code !== 354
            ? { reply: dataReply, stage: 'data' }
            : null;
    if (refused) {
      // A server that said 354 despite the refusal (against the rules, with pipelining) gets an empty message ended;
      // then RSET makes sure the transaction is over before the next one.
      if (dataReply.code === 354) await this.endData([]).catch(() => undefined);
      await this.reset();
      throw new SmtpError(`The server refused the message: ${refused.reply.text}`, refused.stage, refused.reply);
    }
    const final = await this.endData(chunks);
    if (final.code !== 250) throw new SmtpError(`The server refused the message: ${final.text}`, 'message', final);
    return final.text;
  }

  /** QUIT, politely, then the socket goes. */
  async quit(): Promise<void> {
    if (this.usable) {
      await Promise.race([this.command('QUIT', 'message').catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    }
    this.destroy();
  }

  destroy(): void {
    this.fail(new SmtpError('The connection was closed.', 'message'));
    this.socket.destroy();
  }

  private async start(): Promise<void> {
    const greeting = await this.expect('greeting', this.options.greetingTimeoutMs);
    if (greeting.code !== 220) throw new SmtpError(`The server refused the session: ${greeting.text}`, 'greeting', greeting);
    await this.hello();
    if (!this.options.secure && !this.options.ignoreTls && this.extensions.has('STARTTLS')) {
      this.switchingToTls = true;
      const reply = await this.command('STARTTLS', 'starttls');
      if (reply.code !== 220) throw new SmtpError(`STARTTLS was refused: ${reply.text}`, 'starttls', reply);
      await this.upgrade();
      await this.hello();
    }
    if (!this.secured && this.options.requireTls) {
      throw new SmtpError('The server offers no STARTTLS, and the SMTP URL says ?tls=required: nothing is sent in clear.', 'starttls');
    }
    if (this.options.auth && !this.secured && !this.options.ignoreTls) {
      // A password in clear can be read by anyone on the path; only an explicit ?tls=off (a local relay) allows it.
      throw new SmtpError('The server offers no STARTTLS: the login is not sent without TLS (add ?tls=off to the SMTP URL to allow it).', 'auth');
    }
    if (this.options.auth) await this.authenticate(this.options.auth);
  }

  private async hello(): Promise<void> {
    const name = heloName(this.socket);
    let reply = await this.command(`EHLO ${name}`, 'ehlo');
    if (reply.code !== 250) {
      reply = await this.command(`HELO ${name}`, 'ehlo');
      if (reply.code !== 250) throw new SmtpError(`The server refused EHLO and HELO: ${reply.text}`, 'ehlo', reply);
      this.extensions = new Set();
      return;
    }
    const [, ...extensions] = reply.lines;
    this.extensions = new Set(extensions.map((line) => line.split(' ')[0]!.toUpperCase()));
    const auth = extensions.find((line) => /^AUTH[ =]/i.test(line));
    this.authMethods = new Set(auth ? auth.slice(5).toUpperCase().split(/\s+/) : []);
  }

  private async upgrade(): Promise<void> {
    const plain = this.socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('error');
    plain.removeAllListeners('close');
    plain.removeAllListeners('timeout');
    const { host, tls } = this.options;
    this.socket = await new Promise<TLSSocket>((resolve, reject) => {
      // The name the certificate must bear is the host SMTP_URL names: `host` is what node checks it against when
      // there is no SNI name (an IP address may not be sent as one, RFC 6066 §3); without it node checks "localhost".
      const secured = connectTls({ socket: plain, host, servername: isIP(host) ? undefined : host, ...tls }, () => {
        secured.off('error', onError);
        resolve(secured);
      });
      const onError = (err: Error) => reject(new SmtpError(`STARTTLS failed: ${err.message}`, 'starttls', undefined, { cause: err }));
      secured.once('error', onError);
    });
    // RFC 3207 §4.2: nothing the server said before the handshake counts; the reader starts empty.
    this.reader = new ReplyReader();
    this.switchingToTls = false;
    this.secured = true;
    this.listen(this.socket);
  }

  private async authenticate(auth: { user: string; pass: string }): Promise<void> {
    const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');
    let reply: SmtpReply;
    if (this.authMethods.has('PLAIN')) {
      reply = await this.command(`AUTH PLAIN ${b64(`\0${auth.user}\0${auth.pass}`)}`, 'auth');
    } else if (this.authMethods.has('LOGIN')) {
      reply = await this.command('AUTH LOGIN', 'auth');
      if (reply.code === 334) reply = await this.command(b64(auth.user), 'auth');
      if (reply.code === 334) reply = await this.command(b64(auth.pass), 'auth');
    } else {
      throw new SmtpError('The server offers no login this client speaks (PLAIN or LOGIN).', 'auth');
    }
    if (reply.code !== 235) throw new SmtpError(`The login was refused: ${reply.text}`, 'auth', reply);
  }

  private async endData(chunks: readonly Buffer[]): Promise<SmtpReply> {
    // The deadline starts once the last byte has left for the kernel: a large message on a slow link is the
    // socket's idle timeout's business, not the server's.
    const pending = this.expect('message', null);
    const waiter = this.waiting[this.waiting.length - 1];
    const socket = this.socket;
    socket.cork();
    const sections = dataSection(chunks);
    sections.forEach((chunk, i) => {
      if (i < sections.length - 1) socket.write(chunk);
      else socket.write(chunk, () => waiter && this.arm(waiter, 'message', this.options.dataTimeoutMs));
    });
    socket.uncork();
    return pending;
  }

  private async reset(): Promise<void> {
    const reply = await this.command('RSET', 'mail');
    if (reply.code !== 250) this.fail(new SmtpError(`RSET was refused: ${reply.text}`, 'mail', reply));
  }

  private command(line: string, stage: SmtpStage): Promise<SmtpReply> {
    const pending = this.expect(stage);
    this.socket.write(`${line}\r\n`, 'utf8');
    return pending;
  }

  /** A reply to wait for, failing the session when none comes within `timeoutMs` (null: armed later). */
  private expect(stage: SmtpStage, timeoutMs: number | null = this.options.commandTimeoutMs): Promise<SmtpReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { stage, resolve, reject, timer: null };
      this.waiting.push(waiter);
      if (timeoutMs !== null) this.arm(waiter, stage, timeoutMs);
    });
  }

  private arm(waiter: Waiter, stage: SmtpStage, timeoutMs: number): void {
    if (this.failure || !this.waiting.includes(waiter)) return;
    waiter.timer = setTimeout(() => {
      this.fail(new SmtpError(`No answer from the server within ${timeoutMs} ms (${stage}).`, stage));
      this.socket.destroy();
    }, timeoutMs);
    waiter.timer.unref();
  }

  private listen(socket: Socket | TLSSocket): void {
    socket.setTimeout(this.options.socketTimeoutMs);
    socket.on('data', (chunk: Buffer) => {
      let replies: SmtpReply[];
      try {
        replies = this.reader.feed(chunk);
      } catch (err) {
        this.fail(new SmtpError((err as ProtocolError).message, 'message', undefined, { cause: err }));
        socket.destroy();
        return;
      }
      for (const reply of replies) {
        // Lines after the answer to STARTTLS, sent in clear before the handshake (an injection): dropped.
        if (this.switchingToTls && this.waiting.length === 0) break;
        const waiter = this.waiting.shift();
        if (waiter?.timer) clearTimeout(waiter.timer);
        if (!waiter) {
          // 421 "closing" may come unasked; anything else unasked means we no longer agree on the state.
          this.fail(new SmtpError(`The server said, unasked: ${reply.text}`, 'message', reply));
          socket.destroy();
          return;
        }
        waiter.resolve(reply);
      }
      // The answer to STARTTLS is in: not even a partial line after it may prefix the first reply over TLS.
      if (this.switchingToTls && this.waiting.length === 0) this.reader = new ReplyReader();
    });
    // The stage is that of the reply awaited: lost before the data went (MAIL, RCPT, DATA), the message was not
    // delivered and the relay, not the recipient, is at fault (transport.ts); lost after it, it may have been.
    const stage = (): SmtpStage => this.waiting[0]?.stage ?? 'message';
    socket.on('timeout', () => {
      if (this.waiting.length === 0) return; // idle between messages: the pool decides
      this.fail(new SmtpError(`No answer from the server within ${this.options.socketTimeoutMs} ms.`, stage()));
      socket.destroy();
    });
    socket.on('error', (err) => this.fail(new SmtpError(`The connection failed: ${err.message}`, stage(), undefined, { cause: err })));
    socket.on('close', () => this.fail(new SmtpError('The server closed the connection.', stage())));
  }

  /** The session is over: every reply still awaited fails with `err`, and so does every later command. */
  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    for (const waiter of this.waiting.splice(0)) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.reject(err);
    }
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
