import { buildApp } from './app.js';
import { startMailQueue } from './mail/index.js';
import { startBounceMailbox } from './messaging/index.js';
import { configOrExit, runMain, stopOnSignals } from './process.js';
import { startWorker } from './sending/index.js';
import { startWebhookSender } from './webhooks/index.js';

/**
 * `npm run worker`: a campaign sender on its own, no HTTP. Start as many as the mail servers can take, against one
 * PostgreSQL; they share the work through the database. SIGTERM/SIGINT finish the mails in flight and hand the
 * rest of the claimed records back before exiting.
 */
async function main(): Promise<void> {
  const config = configOrExit('mailroom worker');
  if (!config.databaseUrl) {
    // The embedded database can be opened by one process only, and `npm start` already sends (SEND_WORKER=on).
    console.error(
      'mailroom worker: extra workers need PostgreSQL (set DATABASE_URL). The embedded database in DATA_DIR can be ' +
        'opened by one process only, and `npm start` already sends campaigns itself (SEND_WORKER=on).',
    );
    process.exit(78);
  }
  // Signals are handled from the start: a stop during start-up (migrations can take a while) waits for it to end.
  const signals = stopOnSignals();

  // buildApp gives exactly the context the API process has (database, migrations, secrets, transport, logger);
  // it is never told to listen, so this process serves no HTTP.
  const app = await buildApp({ config });
  const worker = startWorker(app.ctx);
  // And the system mail the API processes queue (confirmations, password resets …).
  const mailQueue = startMailQueue(app.ctx);
  // The bounce mailbox is read by the processes that send (BOUNCE_MAILBOX_URL set).
  const bounceMailbox = startBounceMailbox(app.ctx);
  const webhookSender = startWebhookSender(app.ctx);
  app.log.info({ workerId: worker.id, transport: app.ctx.transport.kind }, 'mailroom worker running');
  signals.arm({
    app,
    parts: () => [worker, mailQueue, bounceMailbox, webhookSender],
    message: 'worker shutting down: finishing mails in flight',
    capMs: 60_000,
  });
}

runMain('mailroom worker', main);
