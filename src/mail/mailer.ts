import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { Config } from '../config.js';
import { createDkimSigner, type DkimSigner } from './dkim/signer.js';

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

/** SMTP_URL may name several servers, comma-separated (campaign mail is spread over them: sending/transport.ts). */
export function smtpUrls(value: string): string[] {
  return value
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

/** nodemailer's pooled SMTP options for one `smtp://` or `smtps://` URL (`?tls=off`, `?pool=N`). */
export function smtpPoolOptions(url: string): SMTPPool.Options {
  const parsed = new URL(url);
  const tls = parsed.searchParams.get('tls');
  const secure = parsed.protocol === 'smtps:';
  return {
    host: parsed.hostname,
    port: Number(parsed.port) || (secure ? 465 : 587),
    secure,
    auth: parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined,
    // Plain SMTP to a local relay or sink is common for self-hosting; `?tls=off` skips STARTTLS entirely, and is the
    // only way a login goes without TLS. `?tls=required` refuses a server that offers no STARTTLS.
    ignoreTLS: tls === 'off',
    requireTLS: !secure && (tls === 'required' || (Boolean(parsed.username) && tls !== 'off')),
    pool: true,
    maxConnections: Number(parsed.searchParams.get('pool') ?? 5),
    maxMessages: Infinity,
  };
}

/** System mail (confirmations, password resets) goes to the first server SMTP_URL names, DKIM-signed when keys are configured. */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'> & Partial<Pick<Config, 'dkim' | 'bounceAddress'>>): Mailer {
  const [first] = smtpUrls(config.smtpUrl);
  const signer = config.dkim && config.dkim.length > 0 ? createDkimSigner(config.dkim) : null;
  const bounceAddress = config.bounceAddress ?? '';
  return first ? smtpMailer(first, config.mailFrom, signer, bounceAddress) : outboxMailer(config.dataDir, config.mailFrom, signer);
}

/** The envelope: to whom the message says, from BOUNCE_ADDRESS when set (else nodemailer takes the From address). */
function envelopeOf(message: MailMessage, bounceAddress: string): MailMessage['envelope'] {
  if (!bounceAddress) return undefined;
  const node = new MailComposer(message).compile();
  return { from: bounceAddress, to: node.getEnvelope().to };
}

/** The message built by nodemailer's composer, then signed: what goes out is exactly what was signed. */
async function composeSigned(message: MailMessage, signer: DkimSigner) {
  const node = new MailComposer(message).compile();
  const raw = Buffer.concat(await signer.sign([await node.build()]));
  return { raw, envelope: node.getEnvelope(), messageId: node.messageId() };
}

function smtpMailer(url: string, from: string, signer: DkimSigner | null, bounceAddress: string): Mailer {
  const transport = nodemailer.createTransport(smtpPoolOptions(url));
  return {
    kind: 'smtp',
    async send(message) {
      if (signer) {
        const signed = await composeSigned({ from, ...message }, signer);
        const envelope = bounceAddress ? { ...signed.envelope, from: bounceAddress } : signed.envelope;
        const info = await transport.sendMail({ envelope, raw: signed.raw });
        return { messageId: signed.messageId, response: info.response };
      }
      const envelope = envelopeOf({ from, ...message }, bounceAddress);
      const info = await transport.sendMail({ from, ...message, ...(envelope ? { envelope } : {}) });
      return { messageId: info.messageId, response: info.response };
    },
    async close() {
      transport.close();
    },
  };
}

function outboxMailer(dataDir: string, from: string, signer: DkimSigner | null): Mailer {
  const dir = join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    kind: 'outbox',
    async send(message) {
      const info = signer
        ? await composeSigned({ from, ...message }, signer).then((s) => ({ message: s.raw, messageId: s.messageId }))
        : await transport.sendMail({ from, ...message });
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
      await writeFile(file, info.message as Buffer);
      return { messageId: info.messageId, response: `written to ${file}` };
    },
    async close() {},
  };
}
