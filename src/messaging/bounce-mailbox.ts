import type { ImapFlow } from 'imapflow';
import type { AppContext } from '../context.js';
import { loadActiveRules, processBounce } from './bounce-processing.js';
import { MessageFormatError } from './mime.js';

/*
 * The bounce mailbox (BOUNCE_MAILBOX_URL): every BOUNCE_POLL_SECONDS the process that runs the sender logs in, reads
 * the messages it has not handled yet, processes each (bounce-processing.ts), and moves the processed ones to
 * BOUNCE_MAILBOX_PROCESSED (created if missing). Nothing is ever deleted: when the move fails the messages stay and
 * are flagged \Seen and $MailroomProcessed, and a message that is no e-mail at all is flagged $MailroomUnreadable
 * and left for a person to look at. A message that failed for another reason (the database was away) is left
 * untouched and read again next time; a message read twice is processed once (bounce receipts), so a crash
 * between processing and moving costs nothing.
 */

export const PROCESSED_KEYWORD = '$MailroomProcessed';
export const UNREADABLE_KEYWORD = '$MailroomUnreadable';
/** Messages fetched into memory at once, then processed, then moved. */
const BATCH = 100;
/** Messages processed at once (each in its own transaction). */
const CONCURRENCY = 4;

export interface MailboxLocation {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly user: string;
  readonly pass: string;
  readonly folder: string;
}

/** `imap://user:pass@host:port/INBOX` or `imaps://…` (user and password URL-encoded; folder INBOX by default). */
export function parseMailboxUrl(url: string): MailboxLocation {
  const u = new URL(url);
  const secure = u.protocol === 'imaps:';
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 993 : 143,
    secure,
    user: decodeURIComponent(u.username),
    pass: decodeURIComponent(u.password),
    folder: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'INBOX',
  };
}

export interface PollResult {
  /** Messages read from the mailbox. */
  fetched: number;
  /** Processed now (new bounces). */
  processed: number;
  /** Processed before (read again after a failed move, or also posted over HTTP). */
  duplicates: number;
  /** Not e-mail messages: flagged and left. */
  unreadable: number;
  /** Left untouched after an error, for the next poll. */
  failed: number;
  moved: number;
  /** Handled but could not be moved: flagged instead. */
  flagged: number;
}

/** One pass over the mailbox: every message not handled yet. */
export async function pollMailbox(ctx: AppContext): Promise<PollResult> {
  const where = parseMailboxUrl(ctx.config.bounces.mailboxUrl);
  const processedFolder = ctx.config.bounces.processedFolder;
  const result: PollResult = { fetched: 0, processed: 0, duplicates: 0, unreadable: 0, failed: 0, moved: 0, flagged: 0 };
  // Loaded by the first poll: only a process with a bounce mailbox polls, and loading it is 250 ms of CPU.
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: where.host,
    port: where.port,
    secure: where.secure,
    auth: { user: where.user, pass: where.pass },
    logger: false,
    disableAutoIdle: true,
  });
  // A connection dropped mid-poll is an 'error' event; without a listener it would end the process.
  client.on('error', (err: Error) => ctx.log.warn({ err: err.message }, 'bounce mailbox connection error'));
  await client.connect();
  try {
    await ensureFolder(client, processedFolder);
    const lock = await client.getMailboxLock(where.folder);
    try {
      const found = await client.search({ unKeyword: PROCESSED_KEYWORD, not: { keyword: UNREADABLE_KEYWORD } }, { uid: true });
      const uids = (found || []).sort((a, b) => a - b);
      for (let i = 0; i < uids.length; i += BATCH) {
        await handleBatch(ctx, client, uids.slice(i, i + BATCH), processedFolder, result);
      }
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
  return result;
}

async function handleBatch(ctx: AppContext, client: ImapFlow, uids: number[], processedFolder: string, result: PollResult) {
  // Fetched completely before anything else is sent: IMAP commands cannot run while a FETCH streams.
  const messages: { uid: number; source: Buffer }[] = [];
  for await (const message of client.fetch(uids.join(','), { uid: true, source: { maxLength: ctx.config.bounces.maxSize } }, { uid: true })) {
    if (message.source) messages.push({ uid: message.uid, source: message.source });
  }
  result.fetched += messages.length;
  const rules = await loadActiveRules(ctx.db);
  const done: number[] = [];
  const unreadable: number[] = [];
  for (let i = 0; i < messages.length; i += CONCURRENCY) {
    await Promise.all(
      messages.slice(i, i + CONCURRENCY).map(async ({ uid, source }) => {
        try {
          const outcome = await processBounce(ctx, source, 'mailbox', rules);
          if (outcome.duplicate) result.duplicates++;
          else result.processed++;
          done.push(uid);
        } catch (err) {
          if (err instanceof MessageFormatError) {
            result.unreadable++;
            unreadable.push(uid);
          } else {
            result.failed++;
            ctx.log.error({ err: (err as Error).message, uid }, 'bounce mailbox: processing a message failed; it is left for the next poll');
          }
        }
      }),
    );
  }
  if (done.length > 0) {
    const range = done.sort((a, b) => a - b).join(',');
    const moved = await client.messageMove(range, processedFolder, { uid: true }).catch(() => false);
    if (moved) {
      result.moved += done.length;
    } else {
      await client.messageFlagsAdd(range, ['\\Seen', PROCESSED_KEYWORD], { uid: true });
      result.flagged += done.length;
      ctx.log.warn({ folder: processedFolder }, 'bounce mailbox: moving processed messages failed; flagged them instead');
    }
  }
  if (unreadable.length > 0) await client.messageFlagsAdd(unreadable.sort((a, b) => a - b).join(','), ['\\Seen', UNREADABLE_KEYWORD], { uid: true });
}

/** Creates the folder unless it exists (a server that refuses is no reason to stop: the move then falls back to flags). */
async function ensureFolder(client: ImapFlow, path: string): Promise<void> {
  const folders = await client.list();
  if (folders.some((f) => f.path === path)) return;
  await client.mailboxCreate(path).catch(() => undefined);
}

export interface BounceMailbox {
  /** Stops polling; waits for a poll under way to end. */
  stop(): Promise<void>;
}

/** Starts polling when BOUNCE_MAILBOX_URL is set (null otherwise): the first pass at once, then every BOUNCE_POLL_SECONDS. */
export function startBounceMailbox(ctx: AppContext): BounceMailbox | null {
  if (!ctx.config.bounces.mailboxUrl) return null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = pollMailbox(ctx)
      .then((r) => {
        if (r.fetched > 0 || r.failed > 0) ctx.log.info(r, 'bounce mailbox read');
      })
      // The URL is never logged: it carries the password.
      .catch((err: unknown) => ctx.log.error({ err: (err as Error).message }, 'bounce mailbox: reading failed; trying again later'))
      .finally(() => {
        if (!stopped) timer = setTimeout(run, ctx.config.bounces.pollSeconds * 1000);
      });
  };
  timer = setTimeout(run, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
