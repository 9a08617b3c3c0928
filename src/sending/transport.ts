import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import { smtpPoolOptions, smtpUrls } from '../mail/mailer.js';

/*
 * How campaign mail leaves: messages composed elsewhere (sending/compose) handed over as finished bytes. nodemailer
 * only speaks SMTP here — it never composes, so what the renderer built is what the server receives.
 */

/** The envelope and the complete RFC 5322 message (CRLF line endings). */
export interface RawMessage {
  readonly from: string;
  readonly to: string;
  readonly raw: Buffer;
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
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SendFailure';
  }
}

export interface Transport {
  readonly kind: 'smtp' | 'outbox';
  /** Resolves when the server accepted the message; rejects with SendFailure otherwise. */
  send(message: RawMessage): Promise<TransportResult>;
  close(): Promise<void>;
}

/** SMTP when SMTP_URL names servers (several: round-robin, one connection pool each); else `.eml` files in DATA_DIR/outbox. */
export function createTransport(config: Pick<Config, 'smtpUrl' | 'dataDir'>): Transport {
  const urls = smtpUrls(config.smtpUrl);
  return urls.length > 0 ? smtpTransport(urls) : outboxTransport(join(config.dataDir, 'outbox'));
}

interface NodemailerError {
  readonly message: string;
  readonly code?: string;
  readonly responseCode?: number;
  readonly response?: string;
}

/**
 * RFC 5321: 5yz is a permanent refusal, 4yz a transient one. Two exceptions, as nodemailer also reads them:
 * 503 (bad sequence of commands) is about the session, not the message; and a refused login is our configuration
 * being wrong, which every recipient would hit alike — so neither condemns the recipient.
 */
export function toSendFailure(err: unknown): SendFailure {
  const e = (err ?? {}) as NodemailerError;
  const code = e.responseCode;
  const permanent = typeof code === 'number' && code >= 500 && code < 600 && code !== 503 && e.code !== 'EAUTH';
  const response = (e.response ?? e.message ?? String(err)).trim();
  return new SendFailure(`SMTP delivery failed: ${response}`, permanent, response, { cause: err });
}

function smtpTransport(urls: readonly string[]): Transport {
  const pools = urls.map((url) =>
    nodemailer.createTransport({
      ...smtpPoolOptions(url),
      // Bulk sending: give up on a dead server in seconds rather than nodemailer's minutes, so the delivery is
      // retried later instead of holding a slot.
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 120_000,
    }),
  );
  let next = 0;
  return {
    kind: 'smtp',
    async send(message) {
      const pool = pools[next]!;
      next = (next + 1) % pools.length;
      try {
        const info = await pool.sendMail({ envelope: { from: message.from, to: [message.to] }, raw: message.raw });
        return { response: info.response };
      } catch (err) {
        throw toSendFailure(err);
      }
    },
    async close() {
      for (const pool of pools) pool.close();
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
