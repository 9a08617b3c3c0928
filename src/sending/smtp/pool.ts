import { smtpConnectionErrorsTotal } from '../../shared/metrics.js';
import { SmtpConnection, SmtpError, type SmtpServerOptions } from './connection.js';

/*
 * Up to `size` sessions with one server, opened when there is mail to send and closed after a quiet spell. Messages
 * wait in arrival order for a free session. A session that failed is dropped; one that refused a message (a 5xx for
 * one recipient, say) goes on serving.
 */

export interface PoolOptions extends SmtpServerOptions {
  readonly size: number;
  /** A session with nothing to send for this long says QUIT (servers drop idle sessions on their own, mid-write). */
  readonly idleMs: number;
}

/** How long a pool makes do with fewer sessions after the server turned one away. */
const LIMIT_RESET_MS = 60_000;

interface Job {
  readonly from: string;
  readonly to: string;
  readonly chunks: readonly Buffer[];
  resolve(reply: string): void;
  reject(err: Error): void;
}

interface Session {
  readonly connection: SmtpConnection;
  idleTimer: NodeJS.Timeout | null;
}

export class SmtpPool {
  private readonly queue: Job[] = [];
  private readonly idle: Session[] = [];
  private readonly sessions = new Set<Session>();
  private opening = 0;
  private closed = false;
  /** Sessions to keep at most: the pool's size, or fewer for a while after the server turned one away. */
  private limit: number;
  private limitTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: PoolOptions) {
    this.limit = options.size;
  }

  send(from: string, to: string, chunks: readonly Buffer[]): Promise<string> {
    if (this.closed) return Promise.reject(new SmtpError('The SMTP pool is closed.', 'connect'));
    return new Promise((resolve, reject) => {
      this.queue.push({ from, to, chunks, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.limitTimer) clearTimeout(this.limitTimer);
    for (const job of this.queue.splice(0)) job.reject(new SmtpError('The SMTP pool was closed.', 'connect'));
    const sessions = [...this.sessions];
    this.sessions.clear();
    this.idle.length = 0;
    await Promise.all(
      sessions.map((session) => {
        if (session.idleTimer) clearTimeout(session.idleTimer);
        return session.connection.quit();
      }),
    );
  }

  /** Gives waiting messages to idle sessions, and opens sessions while more are waiting than can be served. */
  private dispatch(): void {
    while (this.queue.length > 0 && this.idle.length > 0) this.run(this.idle.pop()!, this.queue.shift()!);
    while (this.queue.length > this.opening && this.sessions.size + this.opening < this.limit) this.open();
  }

  private open(): void {
    this.opening++;
    SmtpConnection.open(this.options).then(
      (connection) => {
        this.opening--;
        if (this.closed) {
          void connection.quit();
          return;
        }
        const session: Session = { connection, idleTimer: null };
        this.sessions.add(session);
        connection.onClose(() => this.drop(session));
        this.release(session);
      },
      (err: Error) => {
        this.opening--;
        smtpConnectionErrorsTotal.inc();
        if (this.sessions.size > 0) {
          // The server is there but takes no more sessions (421 too many connections): make do with those it took
          // for a while, rather than failing mail that they can carry.
          this.shrinkFor(this.sessions.size + this.opening);
          return;
        }
        // No session at all: the server is out of reach, and everyone waiting would learn the same thing one by one.
        if (this.opening === 0) for (const job of this.queue.splice(0)) job.reject(err);
      },
    );
  }

  private run(session: Session, job: Job): void {
    if (session.idleTimer) {
      clearTimeout(session.idleTimer);
      session.idleTimer = null;
    }
    session.connection.send(job.from, job.to, job.chunks).then(
      (reply) => {
        job.resolve(reply);
        this.release(session);
      },
      (err: Error) => {
        job.reject(err);
        this.release(session);
      },
    );
  }

  private shrinkFor(limit: number): void {
    this.limit = Math.max(1, limit);
    if (this.limitTimer) clearTimeout(this.limitTimer);
    this.limitTimer = setTimeout(() => {
      this.limit = this.options.size;
      this.limitTimer = null;
      if (!this.closed) this.dispatch();
    }, LIMIT_RESET_MS);
    this.limitTimer.unref();
  }

  /** A session is free again: the next message, or a rest until the idle timer ends it. */
  private release(session: Session): void {
    if (!this.sessions.has(session)) return;
    if (!session.connection.usable) {
      this.drop(session);
      return;
    }
    const job = this.queue.shift();
    if (job) {
      this.run(session, job);
      return;
    }
    session.idleTimer = setTimeout(() => {
      this.forget(session);
      void session.connection.quit();
    }, this.options.idleMs);
    session.idleTimer.unref();
    this.idle.push(session);
  }

  /** The session failed or closed: it goes, and a new one may be opened for whoever waits. */
  private drop(session: Session): void {
    if (!this.forget(session)) return;
    session.connection.destroy();
    if (!this.closed) this.dispatch();
  }

  private forget(session: Session): boolean {
    if (!this.sessions.delete(session)) return false;
    if (session.idleTimer) clearTimeout(session.idleTimer);
    const at = this.idle.indexOf(session);
    if (at !== -1) this.idle.splice(at, 1);
    return true;
  }
}
