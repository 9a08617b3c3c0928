import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Config } from '../config.js';

export type MailMessage = Mail.Options;

export interface SendResult {
  readonly messageId: string;
  /** The server's last reply (SMTP), or the path of the written file (outbox). */
  readonly response: string;
}

/** The one way features send mail. SMTP when SMTP_URL is set, otherwise `.eml` files in DATA_DIR/outbox. */
export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<SendResult>;
  close(): Promise<void>;
}

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : outboxMailer(config.dataDir, config.mailFrom);
}

function smtpMailer(url: string, from: string): Mailer {
  const parsed = new URL(url);
  const transport = nodemailer.createTransport({
    host: parsed.hostname,
    port: Number(parsed.port) || (parsed.protocol === 'smtps:' ? 465 : 587),
    secure: parsed.protocol === 'smtps:',
    auth: parsed.username
      ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) }
      : undefined,
    // Plain SMTP to a local relay or sink is common for self-hosting; `?tls=off` skips STARTTLS entirely.
    ignoreTLS: parsed.searchParams.get('tls') === 'off',
    pool: true,
    maxConnections: Number(parsed.searchParams.get('pool') ?? 5),
    maxMessages: Infinity,
  });
  return {
    kind: 'smtp',
    async send(message) {
      const info = await transport.sendMail({ from, ...message });
      return { messageId: info.messageId, response: info.response };
    },
    async close() {
      transport.close();
    },
  };
}

function outboxMailer(dataDir: string, from: string): Mailer {
  const dir = join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    kind: 'outbox',
    async send(message) {
      const info = await transport.sendMail({ from, ...message });
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
      await writeFile(file, info.message as Buffer);
      return { messageId: info.messageId, response: `written to ${file}` };
    },
    async close() {},
  };
}
