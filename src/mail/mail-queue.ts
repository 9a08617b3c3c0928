import { hostname } from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { escapeHtml } from '../shared/html.js';
import { mailFailure } from './mail-log.js';
import * as repo from './mail-queue.repository.js';
import { rendererOf } from './mail-renderers.js';
import type { MailMessage } from './mailer.js';

/*
 * System mail to one person (confirmation, list-join, address change, password reset) leaves after the answer, and
 * survives a mail server that is down or a process that stops. The request only writes a row (`queueMail`, in the
 * transaction of the change the mail reports); a drainer in a sending process (the API process with SEND_WORKER=on
 * or on embedded PGlite, and every `npm run worker`) sends it, retrying with exponential back-off. So every outcome
 * of a sign-up costs the request the same, whatever the mail server does, and nothing is lost while it is away.
 * A kind whose area registered a renderer (mail-renderers.ts) may be queued by reference instead (`queueMailReferences`):
 * the row says to whom, and the drainer renders the mail when it sends it.
 */

export type MailKind = 'confirmation' | 'list-join' | 'address-change' | 'address-undo' | 'password-reset' | 'forward';

/** A mail the mailer composes: From is MAIL_FROM. */
export interface MailToQueue {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

/**
 * A finished message (a forwarded campaign copy, composed by sending/compose): its bytes go out as they are, with
 * this envelope; it carries its own From and Message-ID.
 */
export interface RawMailToQueue {
  readonly envelope: { readonly from: string; readonly to: string };
  readonly raw: Buffer;
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
  const message: repo.QueuedMessage = {
    ...signedOff(mail, ctx.settings.current.organisationName),
    messageId: `<${randomUUID()}@${messageIdDomain(ctx)}>`,
  };
  await repo.insertMails(db, kind, [message], ctx.config.mailQueue.giveUpSeconds);
}

/** The domain of the Message-IDs of system mail: that of the From it goes out with (MAIL_FROM as it applies now). */
function messageIdDomain(ctx: AppContext): string {
  return ctx.settings.current.mailFrom.replace(/^.*@/, '').replace(/[>\s].*$/, '') || 'localhost';
}

/**
 * Queues one mail of `kind` to each of these ids by reference, in one statement and in the caller's transaction:
 * nothing is rendered now; the renderer `kind` registered makes each mail when the drainer sends it, and may drop it
 * then (see mail-renderers.ts). Call `mailQueued` after the transaction commits.
 */
export async function queueMailReferences(ctx: AppContext, db: Executor, kind: MailKind, ids: readonly number[]): Promise<void> {
  // A kind nobody can render would wait in the queue until given up: refuse it where the mistake is made.
  if (!rendererOf(ctx, kind)) throw new Error(`mail queue: no renderer registered for ${kind}; it cannot be queued by reference`);
  await repo.insertReferences(db, kind, ids, messageIdDomain(ctx), ctx.config.mailQueue.giveUpSeconds);
}

/**
 * Writes many mails of one kind in one statement (an import's batch): never one round trip per mail. The statement
 * runs even for no mail, so that a caller whose outcomes must cost the same (a sign-up) writes the same way each time.
 */
export async function queueMails(ctx: AppContext, db: Executor, kind: MailKind, mails: readonly MailToQueue[]): Promise<void> {
  const domain = ctx.config.mailFrom.replace(/^.*@/, '').replace(/[>\s].*$/, '') || 'localhost';
  const organisation = ctx.settings.current.organisationName;
  const messages = mails.map((mail): repo.QueuedMessage => ({ ...signedOff(mail, organisation), messageId: `<${randomUUID()}@${domain}>` }));
  await repo.insertMails(db, kind, messages, ctx.config.mailQueue.giveUpSeconds);
}

/**
 * System mail signed with the organisation's name (issue 26: Settings), under the usual "-- " signature line, so
 * that a person can tell who writes to them; unchanged when no name is set.
 */
export function signedOff(mail: MailToQueue, organisationName: string): MailToQueue {
  const name = organisationName.trim();
  if (!name) return mail;
  const text = `${mail.text.trimEnd()}\n\n-- \n${name}\n`;
  const html = mail.html === undefined ? {} : { html: `${mail.html}<p>— ${escapeHtml(name)}</p>` };
  return { ...mail, text, ...html };
}

/** Writes finished messages to the queue, in the caller's transaction; call `mailQueued` after it commits. */
export async function queueRawMails(ctx: AppContext, db: Executor, kind: MailKind, mails: readonly RawMailToQueue[]): Promise<void> {
  if (mails.length === 0) return;
  const messages = mails.map((mail): repo.QueuedRawMessage => ({ envelope: mail.envelope, raw: mail.raw.toString('base64') }));
  await repo.insertMails(db, kind, messages, ctx.config.mailQueue.giveUpSeconds);
}

/** Tells this process's drainers that mail was queued (after the transaction that wrote it has committed). */
export function mailQueued(ctx: AppContext): void {
  for (const drainer of running.get(ctx) ?? []) drainer.wake();
}

/** Stops this application's drainers (on close, before the database closes). */
export async function stopMailQueues(ctx: AppContext): Promise<void> {
  await Promise.all([...(running.get(ctx) ?? [])].map((d) => d.stop()));
}

/**
 * What each claimed mail sends, by row id. A finished message goes as it was queued; mails by reference are made now
 * by their kind's renderer, one call per kind for the whole batch, and signed off and given their queued Message-ID
 * exactly as `queueMail` would have stored them. A renderer that throws (or is missing) fails its rows' attempts.
 */
async function render(ctx: AppContext, claimed: readonly repo.ClaimedMail[]): Promise<Map<number, MailMessage | null | Error>> {
  const outgoing = new Map<number, MailMessage | null | Error>();
  const byKind = new Map<string, { rowId: number; reference: repo.QueuedReference }[]>();
  for (const mail of claimed) {
    const message = mail.message;
    if ('raw' in message) outgoing.set(mail.id, { envelope: { ...message.envelope }, raw: Buffer.from(message.raw, 'base64') });
    else if ('ref' in message) byKind.set(mail.kind, [...(byKind.get(mail.kind) ?? []), { rowId: mail.id, reference: message }]);
    else outgoing.set(mail.id, { ...message });
  }
  const organisation = ctx.settings.current.organisationName;
  for (const [kind, rows] of byKind) {
    try {
      const renderer = rendererOf(ctx, kind);
      if (!renderer) throw new Error(`no renderer registered for mail kind ${kind}`);
      const made = await renderer(ctx, [...new Set(rows.map((r) => r.reference.ref))]);
      for (const { rowId, reference } of rows) {
        const mail = made.get(reference.ref);
        outgoing.set(rowId, mail ? { ...signedOff(mail, organisation), messageId: reference.messageId } : null);
      }
    } catch (err) {
      for (const { rowId } of rows) outgoing.set(rowId, err instanceof Error ? err : new Error(String(err)));
    }
  }
  return outgoing;
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

  /**
   * Sends one claimed mail: `outgoing` is what it sends, null when its renderer dropped it (deleted unsent), or the
   * error that kept it from being rendered (retried like a failed send).
   */
  async function attempt(mail: repo.ClaimedMail, outgoing: MailMessage | null | Error): Promise<void> {
    try {
      if (outgoing instanceof Error) throw outgoing;
      if (outgoing === null) {
        await repo.deleteMail(ctx.db, mail.id, id);
        ctx.log.info({ mailId: mail.id, kind: mail.kind }, 'queued mail dropped: no longer wanted');
        return;
      }
      await ctx.mailer.send(outgoing);
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
      const outgoing = await render(ctx, claimed);
      // null is a mail dropped by its renderer, not a missing one.
      await Promise.all(claimed.map((mail) => attempt(mail, outgoing.get(mail.id) ?? (outgoing.has(mail.id) ? null : new Error('not rendered')))));
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
