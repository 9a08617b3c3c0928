import { buildApp } from './app.js';
import { limitHeapGrowth } from './heap.js';
import { ensureFirstAdministrator, signInHelp } from './identity/index.js';
import { startBounceMailbox, type BounceMailbox } from './messaging/index.js';
import { startMailQueue, type MailQueueDrainer } from './mail/index.js';
import { configOrExit, runMain, stopOnSignals, tellOperator, type Stoppable } from './process.js';
import { startWorker, type SendWorker } from './sending/index.js';
import { HOME_PAGE } from './system.routes.js';
import { startWebhookSender, type WebhookSender } from './webhooks/index.js';
import { startEmailSearchFold } from './subscription/index.js';

/** The process: configuration, the app, listening, and a graceful close on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = configOrExit('mailroom');
  if (!config.databaseUrl) limitHeapGrowth();
  const signals = stopOnSignals();
  const app = await buildApp({ config });
  const bootstrap = await ensureFirstAdministrator(app.ctx);

  let worker: SendWorker | null = null;
  let bounceMailbox: BounceMailbox | null = null;
  let mailQueue: MailQueueDrainer | null = null;
  let webhookSender: WebhookSender | null = null;
  let emailSearchFold: Stoppable | null = null;
  signals.arm({
    app,
    // The sender first: it finishes the mails in flight and hands unsent claimed records back while the database
    // is still open.
    parts: () => [worker, mailQueue, bounceMailbox, webhookSender, emailSearchFold],
    message: 'shutting down: finishing in-flight requests',
    capMs: 20_000,
  });

  // Every route's schemas before the first request: one that cannot compile stops the start (shared/schema-compilers.ts).
  app.compileSchemas();
  await app.listen({ port: config.port, host: config.host });
  // The bound port, not the configured one: PORT=0 asks the system for a free port.
  const bound = app.server.address();
  const port = bound && typeof bound === 'object' ? bound.port : config.port;
  if (config.sendWorker) worker = startWorker(app.ctx);
  // System mail (confirmations, password resets …) is sent by the sending processes; the embedded database can be
  // opened by this process only, so here it is sent whatever SEND_WORKER says.
  if (config.sendWorker || !config.databaseUrl) mailQueue = startMailQueue(app.ctx);
  // The bounce mailbox is read by the processes that send (BOUNCE_MAILBOX_URL set), not by API-only ones.
  if (config.sendWorker) bounceMailbox = startBounceMailbox(app.ctx);
  // Webhook events are posted by the same processes (issue 27).
  if (config.sendWorker) webhookSender = startWebhookSender(app.ctx);
  // The e-mail search's index is brought up to date by every API process (subscription/email-search.fold.ts).
  emailSearchFold = startEmailSearchFold(app.ctx);
  const where = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  const storage = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  tellOperator(`\nMailroom is listening on ${where} (storage: ${storage}, mail: ${app.ctx.mailer.kind}).\n`);
  tellOperator(`API reference: ${where}/docs\n`);
  // The first start's password is printed once, to the terminal only (stderr), never to the structured log on stdout.
  tellOperator(`\n${signInHelp(`${where}${HOME_PAGE}`, bootstrap)}\n`);
}

runMain('mailroom', main);
