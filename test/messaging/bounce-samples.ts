import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';

/*
 * Bounce messages as mail servers write them, built for the tests: the returned campaign mail is composed by
 * nodemailer (with the headers the sender puts in every campaign mail), and wrapped in an RFC 3464 delivery status
 * notification (Postfix's layout) or an RFC 5965 abuse report (the layout of the big mailbox providers' feedback loops).
 */

export interface Original {
  to: string;
  deliveryId?: number;
  campaignId?: number;
  subscriberUid?: string;
  /** Without angle brackets. */
  messageId?: string;
}

/** A campaign mail as the sender writes it, the X-Mailroom headers included when given. */
export async function originalMail(o: Original): Promise<Buffer> {
  const headers: Record<string, string> = { 'List-Id': '<news.example.com>', Precedence: 'bulk' };
  if (o.campaignId !== undefined) headers['X-Mailroom-Campaign'] = String(o.campaignId);
  if (o.subscriberUid !== undefined) headers['X-Mailroom-Subscriber'] = o.subscriberUid;
  if (o.deliveryId !== undefined) headers['X-Mailroom-Delivery'] = String(o.deliveryId);
  const composer = new MailComposer({
    from: 'News <news@example.com>',
    to: o.to,
    subject: 'Our news — März',
    text: 'Hello, this is the news.\n',
    html: '<p>Hello, this is the <b>news</b>.</p>',
    messageId: o.messageId ?? `c${o.campaignId ?? 0}.s0.${randomBytes(4).toString('hex')}@example.com`,
    headers,
  });
  return composer.compile().build();
}

/** Just the header block of a message. */
export function headerOf(message: Buffer): string {
  const text = message.toString('latin1');
  return text.slice(0, text.search(/\r?\n\r?\n/));
}

export interface DsnOptions {
  original: Buffer;
  recipient: string;
  status?: string;
  action?: string;
  diagnostic?: string;
  /** Return the whole message (message/rfc822) instead of its headers (text/rfc822-headers). */
  fullMessage?: boolean;
  /** base64-encode the returned part, as some servers do. */
  base64?: boolean;
  /** The bounce's own Message-ID (a fresh one by default); null: none. */
  messageId?: string | null;
}

const CRLF = '\r\n';

/** A Postfix-style delivery status notification. */
export function dsn(o: DsnOptions): Buffer {
  const boundary = `B.${randomBytes(6).toString('hex')}`;
  const status = o.status ?? '5.1.1';
  const action = o.action ?? (status.startsWith('5') ? 'failed' : status.startsWith('4') ? 'delayed' : 'delivered');
  const diagnostic = o.diagnostic ?? `smtp; 550 ${status} <${o.recipient}>: Recipient address rejected: User unknown in virtual mailbox table`;
  const returnedType = o.fullMessage ? 'message/rfc822' : 'text/rfc822-headers';
  const returnedBody = o.fullMessage ? o.original.toString('latin1') : `${headerOf(o.original)}${CRLF}`;
  const returned = o.base64
    ? `Content-Type: ${returnedType}${CRLF}Content-Transfer-Encoding: base64${CRLF}${CRLF}${Buffer.from(returnedBody, 'latin1').toString('base64').replace(/.{76}/g, `$&${CRLF}`)}${CRLF}`
    : `Content-Description: Undelivered Message${CRLF}Content-Type: ${returnedType}${CRLF}${CRLF}${returnedBody}`;
  const lines = [
    'Return-Path: <>',
    'Received: by mx.example.net (Postfix) id 3F2A1C0123; Mon, 2 Mar 2026 10:00:05 +0000 (UTC)',
    'From: MAILER-DAEMON@mx.example.net (Mail Delivery System)',
    'To: bounces@example.com',
    'Subject: Undelivered Mail Returned to Sender',
    'Date: Mon, 2 Mar 2026 10:00:05 +0000 (UTC)',
    ...(o.messageId === null ? [] : [`Message-ID: <${o.messageId ?? `${randomBytes(8).toString('hex')}@mx.example.net`}>`]),
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status;${CRLF}\tboundary="${boundary}"`,
    '',
    'This is a MIME-encapsulated message.',
    '',
    `--${boundary}`,
    'Content-Description: Notification',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.example.net.',
    '',
    "I'm sorry to have to inform you that your message could not",
    'be delivered to one or more recipients.',
    '',
    `<${o.recipient}>: host mx2.example.org[192.0.2.7] said: ${diagnostic.replace(/^smtp;\s*/, '')}`,
    '',
    `--${boundary}`,
    'Content-Description: Delivery report',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    'X-Postfix-Queue-ID: 3F2A1C0123',
    'Arrival-Date: Mon, 2 Mar 2026 10:00:03 +0000 (UTC)',
    '',
    `Final-Recipient: rfc822; ${o.recipient}`,
    `Original-Recipient: rfc822;${o.recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    'Remote-MTA: dns; mx2.example.org',
    `Diagnostic-Code: ${diagnostic}`,
    '',
    `--${boundary}`,
  ];
  return Buffer.from(`${lines.join(CRLF)}${CRLF}${returned}${CRLF}--${boundary}--${CRLF}`, 'latin1');
}

export interface ArfOptions {
  original: Buffer;
  recipient: string;
  feedbackType?: string;
  messageId?: string;
}

/** An RFC 5965 abuse report carrying the whole original message as its third part. */
export function arf(o: ArfOptions): Buffer {
  const boundary = `ARF_${randomBytes(6).toString('hex')}`;
  const lines = [
    'From: Feedback Loop <fbl@mail.example.org>',
    'To: abuse@example.com',
    'Subject: Email Feedback Report for IP 192.0.2.1',
    'Date: Tue, 3 Mar 2026 08:12:00 +0000',
    `Message-ID: <${o.messageId ?? `${randomBytes(8).toString('hex')}@fbl.example.org`}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset="US-ASCII"',
    'Content-Transfer-Encoding: 7bit',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.1 on Tue, 3 Mar 2026.',
    '',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${o.feedbackType ?? 'abuse'}`,
    'User-Agent: Example-FBL/1.0',
    'Version: 1',
    'Original-Mail-From: <bounces@example.com>',
    `Original-Rcpt-To: <${o.recipient}>`,
    'Arrival-Date: Tue, 3 Mar 2026 08:00:00 +0000',
    'Source-IP: 192.0.2.1',
    'Reported-Domain: example.com',
    '',
    `--${boundary}`,
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
  ];
  return Buffer.from(`${lines.join(CRLF)}${CRLF}${o.original.toString('latin1')}${CRLF}--${boundary}--${CRLF}`, 'latin1');
}

/** An old-style bounce in plain text (qmail), the returned header quoted in the body. */
export function plainBounce(o: { original: Buffer; recipient: string; text: string }): Buffer {
  return Buffer.from(
    [
      'From: MAILER-DAEMON@old.example.net',
      'To: bounces@example.com',
      'Subject: failure notice',
      'Date: Wed, 4 Mar 2026 09:00:00 +0000',
      `Message-ID: <${randomBytes(8).toString('hex')}@old.example.net>`,
      '',
      'Hi. This is the qmail-send program at old.example.net.',
      "I'm afraid I wasn't able to deliver your message to the following addresses.",
      '',
      `<${o.recipient}>:`,
      o.text,
      '',
      '--- Below this line is a copy of the message.',
      '',
      headerOf(o.original),
      '',
    ].join(CRLF),
    'latin1',
  );
}
