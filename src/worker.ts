import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { startWorker } from './sending/worker.js';
import { startBounceMailbox } from './messaging/bounce-mailbox.js';

/**
 * `npm run worker`: a campaign sender on its own, no HTTP. Start as many as the mail servers can take, against one
 * PostgreSQL; they share the work through the database. SIGTERM/SIGINT finish the mails in flight and hand the
 * rest of the claimed records back before exiting.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`mailroom worker: ${err.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  // Signals are handled from the start: a stop during start-up (migrations can take a while) waits for it to end.
  let stopRequested: string | null = null;
  let shutdown: ((signal: string) => void) | null = null;
  const onSignal = (signal: string) => {
    if (shutdown) shutdown(signal);
    else stopRequested ??= signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // buildApp gives exactly the context the API process has (database, migrations, secrets, transport, logger);
  // it is never told to listen, so this process serves no HTTP.
  const app = await buildApp({ config });
  const worker = startWorker(app.ctx);
  // The bounce mailbox is read by the processes that send (BOUNCE_MAILBOX_URL set).
  const bounceMailbox = startBounceMailbox(app.ctx);
  app.log.info({ workerId: worker.id, transport: app.ctx.transport.kind }, 'mailroom worker running');

  let closing = false;
  shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'worker shutting down: finishing mails in flight');
    const timer = setTimeout(() => {
      app.log.error('worker shutdown took longer than 60 s; exiting');
      process.exit(1);
    }, 60_000);
    timer.unref();
    void worker
      .stop()
      .then(() => bounceMailbox?.stop())
      .then(() => app.close())
      .then(() => process.exit(0));
  };
  if (stopRequested) shutdown(stopRequested);
}

main().catch((err: unknown) => {
  console.error('mailroom worker: failed to start:', err);
  process.exit(1);
});
