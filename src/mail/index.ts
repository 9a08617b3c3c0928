/*
 * Mail: the transactional mailer, SMTP settings and DKIM signing.
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { createDkimSigner } from './dkim/signer.js';
export { createSigningPool, defaultSigningThreads } from './dkim/pool.js';
export type { DkimSigner } from './dkim/signer.js';
export { mailFailure } from './mail-log.js';
export { createMailer, settingsMailer, smtpPoolOptions, smtpUrls } from './mailer.js';
export type { Mailer } from './mailer.js';
export { deliveryOfAddresses, verpSender } from './verp.js';
export { mailQueued, queueMail, queueMailReferences, queueMails, queueRawMails, startMailQueue, stopMailQueues } from './mail-queue.js';
export { registerMailRenderer } from './mail-renderers.js';
export type { MailRenderer } from './mail-renderers.js';
export { collectMailQueueMetrics } from './mail-queue.metrics.js';
export type { MailKind, MailQueueDrainer, MailToQueue, RawMailToQueue } from './mail-queue.js';
