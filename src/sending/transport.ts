import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import { smtpPoolOptions, smtpUrls, createSigningPool, defaultSigningThreads } from '../mail/index.js';
import type { SettingsStore } from '../settings/index.js';
import { Swapping } from '../shared/swapping.js';
import { signingTransport } from './dkim-transport.js';
import { SmtpError } from './smtp/connection.js';
import { SmtpPool } from './smtp/pool.js';

/*
 * How campaign mail leaves: messages composed elsewhere (sending/compose) handed over as finished bytes, to SMTP or
 * to the outbox. SMTP goes through Mailroom's own bulk client (sending/smtp): nodemailer's data path examines every
 * byte of every message in JavaScript, which cost a third of the sender's time; ours writes the prebuilt buffers as
 * they are. `?client=nodemailer` on a URL keeps nodemailer for that server, should a server and our client disagree.
 */

/** The envelope and the complete RFC 5322 message (CRLF line endings), as buffers to be written in order. */
export interface RawMessage {
  readonly from: string;
  readonly to: string;
  readonly raw: readonly Buffer[];
}

export interface TransportResult {
  /** The server's final reply (SMTP), or where the message was written (outbox). */
  readonly response: string;
}

/**
 * A message that was not accepted. `permanent`: the server refused it with a 5xx reply, and sending the same
 * message again would be refused again. Otherwise (4xx, connection lost, timeout, authentication) a later
 * attempt may succeed.
 */
export class SendFailure extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    /** The server's reply text, or the error's message when there was no reply. */
    readonly response: string,
    options?: { cause?: unknown; relay?: string },
  ) {
    super(message, options);
    this.name = 'SendFailure';
    this.relay = options?.relay ?? null;
  }

  /**
   * Set when the relay itself could not be used — no connection, a refused session (421), TLS or login failing, the
   * session lost before the message went — saying what happened: no recipient's fault, and no attempt of theirs.
   */
  readonly relay: string | null;
}

export interface Transport {
  readonly kind: 'smtp' | 'outbox';
  /** Resolves when the server accepted the message; rejects with SendFailure otherwise. */
  send(message: RawMessage): Promise<TransportResult>;
  close(): Promise<void>;
}

/** Settings that have no place in a URL; tests use them to trust their own certificate authority and to wait less. */
export interface TransportOptions {
  readonly tls?: TlsOptions;
  readonly timeouts?: Partial<SmtpTimeouts>;
  /** With DKIM keys configured: told once per From domain that no key signs (app.ts logs a warning). */
  readonly onUnsigned?: (domain: string) => void;
}

export interface SmtpTimeouts {
  readonly connectionTimeoutMs: number;
  readonly greetingTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly dataTimeoutMs: number;
  readonly socketTimeoutMs: number;
}

/**
 * SMTP when SMTP_URL names servers (several: round-robin, one connection pool each); else `.eml` files in
 * DATA_DIR/outbox. DKIM-signed when keys are configured, on DKIM_THREADS signing threads (mail/dkim/pool.ts).
 */
export function createTransport(
  config: Pick<Config, 'smtpUrl' | 'dataDir'> & Partial<Pick<Config, 'dkim' | 'dkimThreads'>>,
  options: TransportOptions = {},
): Transport {
  const urls = smtpUrls(config.smtpUrl);
  const transport = urls.length > 0 ? smtpTransport(urls, options) : outboxTransport(join(config.dataDir, 'outbox'));
  return config.dkim && config.dkim.length > 0
    ? signingTransport(
        transport,
        createSigningPool(config.dkim, { threads: config.dkimThreads || defaultSigningThreads(), onUnsigned: options.onUnsigned }),
      )
    : transport;
}

/**
 * The campaign transport of a running service: the SMTP servers the settings name now (src/settings). When they
 * change, new messages go through pools built for the new servers; the old pools close once their messages in
 * flight are answered.
 */
export function settingsTransport(
  settings: SettingsStore,
  config: Pick<Config, 'dataDir'> & Partial<Pick<Config, 'dkim' | 'dkimThreads'>>,
  options: TransportOptions = {},
): Transport {
  const build = (urls: readonly string[]) => createTransport({ ...config, smtpUrl: urls.join(',') }, options);
  const transport = new Swapping(build(settings.current.smtpUrls));
  settings.onChange((now, before) => {
    if (now.smtpUrls.join(',') !== before.smtpUrls.join(',')) transport.replace(build(now.smtpUrls));
  });
  return transport;
}

interface NodemailerError {
  readonly message: string;
  readonly code?: string;
  readonly responseCode?: number;
  readonly response?: string;
}

/**
 * RFC 5321: 5yz is a permanent refusal, 4yz a transient one. Two exceptions: 503 (bad sequence of commands) is
 * about the session, not the message; and a refusal before the transaction (greeting, STARTTLS, login) is the
 * server's state or our configuration, which every recipient would hit alike — so neither condemns the recipient.
 */
export function toSendFailure(err: unknown): SendFailure {
  let code: number | undefined;
  let response: string;
  let sessionLevel: boolean;
  let relay: string | undefined;
  if (err instanceof SmtpError) {
    code = err.reply?.code;
    response = err.reply?.text ?? err.message;
    sessionLevel = !['mail', 'rcpt', 'data', 'message'].includes(err.stage);
    // The message had not gone when the session was refused or lost (after the data, it may have: that counts).
    const beforeMessage = sessionLevel || (err.reply === undefined && err.stage !== 'message');
    if (beforeMessage || code === 421) relay = err.message;
  } else {
    const e = (err ?? {}) as NodemailerError;
    code = e.responseCode;
    response = e.response ?? e.message ?? String(err);
    sessionLevel = e.code === 'EAUTH';
    if (RELAY_CODES.has(e.code ?? '') || code === 421) relay = e.message ?? response;
  }
  const permanent = typeof code === 'number' && code >= 500 && code < 600 && code !== 503 && !sessionLevel;
  response = response.trim();
  return new SendFailure(`SMTP delivery failed: ${response}`, permanent, response, { cause: err, relay: relay?.trim().slice(0, 500) });
}

/** nodemailer's codes for a relay that could not be reached or used (its connection, TLS, login, name look-up). */
const RELAY_CODES = new Set(['ECONNECTION', 'ETLS', 'EAUTH', 'EDNS']);

type Send = (message: RawMessage) => Promise<string>;

/**
 * Bulk sending gives up on a dead server in seconds, so the delivery is retried later instead of holding a batch.
 * RFC 5321 §4.5.3.2 asks a relay to wait minutes (5 for the greeting and MAIL/RCPT, 10 after the data), for any
 * server on the Internet; campaign mail goes to the operator's own relay, which answers in milliseconds when it is
 * well, so these are a fraction of those: one stuck session costs a batch 15 s, not 2 minutes. The end of the data
 * keeps a minute (a relay may scan the message first); the socket's idle limit only guards a stalled upload.
 */
export const SMTP_TIMEOUTS: SmtpTimeouts = {
  connectionTimeoutMs: 10_000,
  greetingTimeoutMs: 15_000,
  commandTimeoutMs: 15_000,
  dataTimeoutMs: 60_000,
  socketTimeoutMs: 120_000,
};

function serverSender(url: string, options: TransportOptions): { send: Send; close(): Promise<void> } {
  const settings = smtpPoolOptions(url);
  const TIMEOUTS = { ...SMTP_TIMEOUTS, ...options.timeouts };
  if (new URL(url).searchParams.get('client') === 'nodemailer') {
    const pool = nodemailer.createTransport({
      ...settings,
      connectionTimeout: TIMEOUTS.connectionTimeoutMs,
      greetingTimeout: TIMEOUTS.greetingTimeoutMs,
      socketTimeout: TIMEOUTS.socketTimeoutMs,
      tls: options.tls,
    });
    return {
      send: async (message) =>
        (await pool.sendMail({ envelope: { from: message.from, to: [message.to] }, raw: Buffer.concat(message.raw) })).response,
      close: async () => pool.close(),
    };
  }
  const pool = new SmtpPool({
    host: settings.host!,
    port: Number(settings.port),
    secure: settings.secure === true,
    ignoreTls: settings.ignoreTLS === true,
    requireTls: new URL(url).searchParams.get('tls') === 'required',
    auth: settings.auth?.user ? { user: settings.auth.user, pass: settings.auth.pass ?? '' } : undefined,
    tls: options.tls,
    size: settings.maxConnections ?? 5,
    idleMs: 30_000,
    ...TIMEOUTS,
  });
  return { send: (message) => pool.send(message.from, message.to, message.raw), close: () => pool.close() };
}

function smtpTransport(urls: readonly string[], options: TransportOptions): Transport {
  const servers = urls.map((url) => serverSender(url, options));
  let next = 0;
  return {
    kind: 'smtp',
    async send(message) {
      const server = servers[next]!;
      next = (next + 1) % servers.length;
      try {
        return { response: await server.send(message) };
      } catch (err) {
        throw toSendFailure(err);
      }
    },
    async close() {
      await Promise.all(servers.map((server) => server.close()));
    },
  };
}

function outboxTransport(dir: string): Transport {
  let ready: Promise<unknown> | null = null;
  return {
    kind: 'outbox',
    async send(message) {
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
      try {
        ready ??= mkdir(dir, { recursive: true }).catch((err: unknown) => {
          ready = null;
          throw err;
        });
        await ready;
        await writeFile(file, message.raw);
      } catch (err) {
        // A full or read-only disk may clear up; nothing about the recipient is wrong.
        throw new SendFailure(`Could not write to the outbox: ${(err as Error).message}`, false, (err as Error).message, { cause: err });
      }
      return { response: `written to ${file}` };
    },
    async close() {},
  };
}
