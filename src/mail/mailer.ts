import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { Config } from '../config.js';
import type { EffectiveSettings, SettingsStore } from '../settings/index.js';
import { Swapping } from '../shared/swapping.js';
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

type MailerConfig = Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'> & Partial<Pick<Config, 'dkim' | 'bounceAddress'>> & { replyTo?: string };

/** System mail (confirmations, password resets) goes to the first server SMTP_URL names, DKIM-signed when keys are configured. */
export function createMailer(config: MailerConfig): Mailer {
  const [first] = smtpUrls(config.smtpUrl);
  const signer = config.dkim && config.dkim.length > 0 ? createDkimSigner(config.dkim) : null;
  const bounceAddress = config.bounceAddress ?? '';
  // The default Reply-To (console settings) goes in front of the message's own fields, which win.
  const defaults: MailMessage = { from: config.mailFrom, ...(config.replyTo ? { replyTo: config.replyTo } : {}) };
  return first ? smtpMailer(first, defaults, signer, bounceAddress) : outboxMailer(config.dataDir, defaults, signer);
}

/**
 * The mailer of a running service: SMTP servers, From and Reply-To as the settings say now (src/settings). When they
 * change, new mail goes through a mailer built from them, and the old one's pool closes once its mails in flight are sent.
 */
export function settingsMailer(settings: SettingsStore, config: Omit<MailerConfig, 'smtpUrl' | 'mailFrom' | 'replyTo'>): Mailer {
  const build = (now: EffectiveSettings) =>
    createMailer({ ...config, smtpUrl: now.smtpUrls.join(','), mailFrom: now.mailFrom, replyTo: now.replyTo });
  const mailer = new Swapping(build(settings.current));
  settings.onChange((now, before) => {
    if (now.smtpUrls.join(',') === before.smtpUrls.join(',') && now.mailFrom === before.mailFrom && now.replyTo === before.replyTo) return;
    mailer.replace(build(now));
  });
  return mailer;
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

function smtpMailer(url: string, defaults: MailMessage, signer: DkimSigner | null, bounceAddress: string): Mailer {
  const transport = nodemailer.createTransport(smtpPoolOptions(url));
  return {
    kind: 'smtp',
    async send(message) {
      if (signer) {
        const signed = await composeSigned({ ...defaults, ...message }, signer);
        const envelope = bounceAddress ? { ...signed.envelope, from: bounceAddress } : signed.envelope;
        const info = await transport.sendMail({ envelope, raw: signed.raw });
        return { messageId: signed.messageId, response: info.response };
      }
      const envelope = envelopeOf({ ...defaults, ...message }, bounceAddress);
      const info = await transport.sendMail({ ...defaults, ...message, ...(envelope ? { envelope } : {}) });
      return { messageId: info.messageId, response: info.response };
    },
    async close() {
      transport.close();
    },
  };
}

function outboxMailer(dataDir: string, defaults: MailMessage, signer: DkimSigner | null): Mailer {
  const dir = join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    kind: 'outbox',
    async send(message) {
      const info = signer
        ? await composeSigned({ ...defaults, ...message }, signer).then((s) => ({ message: s.raw, messageId: s.messageId }))
        : await transport.sendMail({ ...defaults, ...message });
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
      await writeFile(file, info.message as Buffer);
      return { messageId: info.messageId, response: `written to ${file}` };
    },
    async close() {},
  };
}
