import { hostname } from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { mailFailure } from './mail-log.js';
import * as repo from './mail-queue.repository.js';

/*
 * System mail to one person (confirmation, list-join, address change, password reset) leaves after the answer, and
 * survives a mail server that is down or a process that stops. The request only writes a row (`queueMail`, in the
 * transaction of the change the mail reports); a drainer in a sending process (the API process with SEND_WORKER=on
 * or on embedded PGlite, and every `npm run worker`) sends it, retrying with exponential back-off. So every outcome
 * of a sign-up costs the request the same, whatever the mail server does, and nothing is lost while it is away.
 */

export type MailKind = 'confirmation' | 'list-join' | 'address-change' | 'address-undo' | 'password-reset';

export interface MailToQueue {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

export interface MailQueueDrainer {
  readonly id: string;
  /** Sends what is due now; answers how many mails were attempted. */
  runOnce(): Promise<number>;
  /** Looks for mail at once instead of at the next poll. */
  wake(): void;
  /** Finishes the mails in flight and stops. */
  stop(): Promise<void>;
}

/** Mails taken per claim: a handful, so that one slow server does not hold many rows under one lease. */
const BATCH = 10;
/** The longest wait between two attempts of one mail. */
const MAX_DELAY_SECONDS = 3600;

/** The drainers running in this process, by application: queueing wakes them. */
const running = new WeakMap<AppContext, Set<MailQueueDrainer>>();

/** Writes a mail to the queue; `db` is the caller's transaction when there is one. Call `mailQueued` after it commits. */
export async function queueMail(ctx: AppContext, db: Executor, kind: MailKind, mail: MailToQueue): Promise<void> {
  const domain = ctx.config.mailFrom.replace(/^.*@/, '').replace(/[>\s].*$/, '') || 'localhost';
  const message: repo.QueuedMessage = { ...mail, messageId: `<${randomUUID()}@${domain}>` };
  await repo.insertMail(db, kind, message, ctx.config.mailQueue.giveUpSeconds);
}

/** Tells this process's drainers that mail was queued (after the transaction that wrote it has committed). */
export function mailQueued(ctx: AppContext): void {
  for (const drainer of running.get(ctx) ?? []) drainer.wake();
}

/** Stops this application's drainers (on close, before the database closes). */
export async function stopMailQueues(ctx: AppContext): Promise<void> {
  await Promise.all([...(running.get(ctx) ?? [])].map((d) => d.stop()));
}

/** A failure worth another try: no reply, or a temporary (4xx) one. A 5xx says the same message will be refused again. */
const isPermanent = (err: unknown) => {
  const code = (err as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500;
};

export function startMailQueue(ctx: AppContext, options: { loop?: boolean } = {}): MailQueueDrainer {
  const settings = ctx.config.mailQueue;
  const id = `${hostname()}:${process.pid}:mail:${randomBytes(3).toString('hex')}`;
  let stopping = false;
  let wakeUp: (() => void) | null = null;
  let woken = false;

  async function attempt(mail: repo.ClaimedMail): Promise<void> {
    try {
      await ctx.mailer.send({ ...mail.message });
      await repo.deleteMail(ctx.db, mail.id, id);
      if (mail.attempts > 1) ctx.log.info({ mailId: mail.id, kind: mail.kind, attempts: mail.attempts }, 'queued mail sent after retrying');
    } catch (err) {
      const failure = mailFailure(err);
      const delay = Math.min(MAX_DELAY_SECONDS, (settings.retryMs / 1000) * 2 ** (mail.attempts - 1));
      if (isPermanent(err) || Date.now() + delay * 1000 > mail.giveUpAt.getTime()) {
        // Never the address or the text: the kind, the row and the failure with addresses masked.
        ctx.log.error({ mailId: mail.id, kind: mail.kind, attempts: mail.attempts, failure }, 'queued mail given up');
        await repo.deleteMail(ctx.db, mail.id, id);
        return;
      }
      ctx.log.warn({ mailId: mail.id, kind: mail.kind, attempts: mail.attempts, failure }, 'queued mail not sent; will retry');
      await repo.retryMail(ctx.db, mail.id, id, delay, `${failure.code ?? ''} ${failure.responseCode ?? ''} ${failure.message}`.trim().slice(0, 500));
    }
  }

  async function runOnce(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const claimed = await repo.claimMail(ctx.db, id, BATCH, settings.leaseSeconds);
      await Promise.all(claimed.map(attempt));
      attempted += claimed.length;
      if (claimed.length < BATCH || stopping) return attempted;
    }
  }

  let pass: Promise<unknown> = Promise.resolve();
  const serialised = (): Promise<number> => {
    const next = pass.then(runOnce, runOnce);
    pass = next.catch(() => {});
    return next;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping || woken) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  const loop = (async () => {
    if (options.loop === false) return;
    let failures = 0;
    while (!stopping) {
      woken = false;
      try {
        await serialised();
        failures = 0;
        await sleep(settings.pollMs);
      } catch (err) {
        // The database is away: say so, and wait longer each time (up to 30 s).
        failures++;
        ctx.log.error({ err, failures }, 'mail queue pass failed; trying again');
        await sleep(Math.min(30_000, settings.pollMs * 2 ** Math.min(failures, 10)));
      }
    }
  })();

  const drainer: MailQueueDrainer = {
    id,
    runOnce: serialised,
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      stopping = true;
      wakeUp?.();
      await loop;
      await pass;
      running.get(ctx)?.delete(drainer);
    },
  };
  if (!running.has(ctx)) running.set(ctx, new Set());
  running.get(ctx)!.add(drainer);
  return drainer;
}
