import type { AppContext } from '../context.js';
import { sendConfirmationRequest } from './subscriber-confirmation.js';
import { isEmail } from './subscriber-import.columns.js';
import { findSubscribers } from './subscriber.repository.js';

/*
 * Confirmation mails of an import go out after its transaction commits, in the background: the answer does not
 * wait for thousands of SMTP conversations. They are sent in subscriber order, a few at a time, re-reading each
 * batch so a subscriber confirmed, blacklisted or deleted meanwhile gets nothing. The ids wait in a compact
 * Int32Array (4 bytes each). Not durable: a restart forgets the mails not yet sent (logged at shutdown).
 */

const READ_BATCH = 500;
const CONCURRENCY = 5;

/** Growable list of subscriber ids. */
export class IdList {
  private ids = new Int32Array(1024);
  length = 0;

  push(id: number): void {
    if (this.length === this.ids.length) {
      const bigger = new Int32Array(this.ids.length * 2);
      bigger.set(this.ids);
      this.ids = bigger;
    }
    this.ids[this.length++] = id;
  }

  slice(start: number, end: number): number[] {
    return Array.from(this.ids.subarray(start, Math.min(end, this.length)));
  }
}

interface Sender {
  stopped: boolean;
  running: Set<Promise<void>>;
}

const senders = new WeakMap<AppContext, Sender>();

function senderOf(ctx: AppContext): Sender {
  let sender = senders.get(ctx);
  if (!sender) senders.set(ctx, (sender = { stopped: false, running: new Set() }));
  return sender;
}

/** Starts sending; answers at once. */
export function sendConfirmationsInBackground(ctx: AppContext, ids: IdList): void {
  if (ids.length === 0) return;
  const sender = senderOf(ctx);
  const run = (async () => {
    let sent = 0;
    for (let start = 0; start < ids.length && !sender.stopped; start += READ_BATCH) {
      const rows = await findSubscribers(ctx.db, ids.slice(start, start + READ_BATCH));
      const due = rows.filter((s) => !s.confirmed && !s.blacklisted && isEmail(s.email)).sort((a, b) => a.id - b.id);
      for (let i = 0; i < due.length && !sender.stopped; i += CONCURRENCY) {
        const results = await Promise.all(due.slice(i, i + CONCURRENCY).map((s) => sendConfirmationRequest(ctx, s)));
        sent += results.filter(Boolean).length;
      }
    }
    if (sender.stopped) ctx.log.warn({ sent, queued: ids.length }, 'import confirmation mails interrupted by shutdown');
  })()
    .catch((err: unknown) => ctx.log.error({ err }, 'import confirmation mails stopped'))
    .finally(() => sender.running.delete(run));
  sender.running.add(run);
}

/** Stops the background senders and waits for the mails in flight (on shutdown, before the database closes). */
export async function stopConfirmationSenders(ctx: AppContext): Promise<void> {
  const sender = senders.get(ctx);
  if (!sender) return;
  sender.stopped = true;
  await Promise.all([...sender.running]);
}
