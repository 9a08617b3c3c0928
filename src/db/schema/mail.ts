import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/*
 * The mail area: system mail waiting to leave (src/mail/mail-queue*.ts).
 */

/**
 * Mail to one person (confirmation, list-join, address change and its undo, password reset) written by the request
 * that causes it, in the same transaction as the change it reports, and sent after the answer by the drainer of a
 * sending process. A drainer claims due rows with FOR UPDATE SKIP LOCKED under a lease (it moves `next_attempt_at`
 * to the lease's end, so a row whose drainer died is due again then); a sent row
 * is deleted (the queue is not a log, and a row may hold a link that is a credential); a failed one waits
 * `next_attempt_at` (exponential back-off) and is given up, deleted and logged without personal data, once
 * `give_up_at` has passed.
 */
export const mailQueue = pgTable(
  'mail_queue',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** What the mail is (`confirmation`, `list-join`, `address-change`, `address-undo`, `password-reset` …): for the log. */
    kind: text('kind').notNull(),
    /**
     * The message: `{to, subject, text, html?, messageId}` (nodemailer's fields; From is the service's MAIL_FROM), a
     * finished one, `{envelope: {from, to}, raw}` (base64 bytes: a forwarded campaign copy), or a reference,
     * `{ref, messageId}`: the id the kind's renderer makes the mail from when it is sent (a `confirmation` request's
     * subscriber; src/mail/mail-renderers.ts). A reference keeps the queue's writes small (an import's
     * confirmations) and lets the mail be dropped when it is no longer wanted; it stays in this column rather than one
     * of its own so that the queue's columns stay about delivery and the mail area names no other area's table.
     */
    message: jsonb('message').notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When a drainer may take the row: due now, after a back-off, or when the lease of the drainer holding it ends. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** The drainer holding the row (its lease is next_attempt_at), or null. */
    workerId: text('worker_id'),
    /** The last failure, addresses masked (mail/mail-log.ts). */
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    giveUpAt: timestamp('give_up_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('mail_queue_due_idx').on(t.nextAttemptAt)],
);
