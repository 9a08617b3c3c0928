import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results, Transaction } from '@electric-sql/pglite';

/*
 * The embedded database on a thread of its own. PGlite runs PostgreSQL as WebAssembly, synchronously: on the thread
 * that also accepts connections and reads requests, a busy database froze the whole service (event-loop turns of
 * 100-400 ms at 200 connections), so new connections waited unseen in the kernel's queue until clients gave up, and
 * the overload cap (plugins/overload.ts) never saw them to answer 503. Here the main thread only posts each call to
 * the database thread and gets the result back, so it stays free to accept, queue and shed load.
 *
 * `PgliteThread` offers the part of PGlite's client that drizzle and this service use (query, exec, transaction,
 * dumpDataDir, close). A transaction is pinned to the thread's one connection by its id; PGlite makes every other
 * query wait until it ends, as it does in-process.
 */

/** What the database thread starts with. */
export interface ThreadStart {
  /** PGlite's data directory (`memory://` keeps it in memory). */
  path: string;
  /** A dump to start from (tests' golden database). */
  loadDataDir?: Uint8Array;
  /** PostgreSQL's shared_buffers, when not PGlite's default (128MB). */
  sharedBuffers?: string;
}

/** A call of the database thread; the request carries an id its reply names. */
export type ThreadCall =
  | { op: 'query'; sql: string; params?: unknown[]; rowMode?: QueryOptions['rowMode']; keepText?: number[]; tx?: number }
  | { op: 'exec'; sql: string; tx?: number }
  | { op: 'begin' }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'dump'; compression?: 'gzip' | 'none' | 'auto' }
  | { op: 'close' };
export type ThreadRequest = ThreadCall & { id: number };

/** An error as it crosses threads: structured cloning would drop its SQLSTATE `code` and the rest. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  props: Record<string, string | number | boolean>;
  cause?: WireError;
}

export type ThreadReply = { id: number; value?: unknown; error?: WireError };
type StartReply = { started: true } | { started: false; error: WireError };

/** The error of a thrown WireError: the same message, name and driver fields (`code` for isDatabaseUnreachable). */
export function rebuildError(wire: WireError): Error {
  const err = new Error(wire.message, wire.cause ? { cause: rebuildError(wire.cause) } : undefined);
  Object.assign(err, wire.props);
  err.name = wire.name;
  if (wire.stack) err.stack = wire.stack;
  return err;
}

/** Under tsx (tests, `npm run dev`) the sources are TypeScript; built, they are dist/'s JavaScript. */
const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(`./pglite-thread.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);

/** The database thread; from the sources it first registers tsx, whose loader Node does not pass on to threads. */
function spawn(workerData: ThreadStart, transferList: ArrayBuffer[]): Worker {
  if (!fromSources) return new Worker(workerUrl, { workerData, transferList });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(boot, { eval: true, workerData, transferList });
}

/** A sentinel a text-keeping parser hands back unchanged. */
const PROBE = '\u0000probe';

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** performance.now() when it was posted. */
  since: number;
}

export class PgliteThread {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Set once the thread is gone: every call fails with it. */
  private stopped: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: ThreadReply) => this.settle(reply));
    worker.on('error', (err) => this.stop(`it failed: ${err.message}`));
    worker.on('exit', (code) => this.stop(`it exited with code ${code}`));
    // Idle, the thread does not keep the process alive (as an in-process PGlite would not); a call in flight does.
    worker.unref();
  }

  /** Starts the thread and opens the database in it; rejects with PGlite's own error (errno for DATA_DIR checks). */
  static async start(path: string, loadDataDir?: Blob, sharedBuffers?: string): Promise<PgliteThread> {
    const bytes = loadDataDir ? new Uint8Array(await loadDataDir.arrayBuffer()) : undefined;
    const worker = spawn({ path, loadDataDir: bytes, sharedBuffers }, bytes ? [bytes.buffer as ArrayBuffer] : []);
    let onMessage!: (reply: StartReply) => void;
    let onError!: (err: Error) => void;
    let onExit!: (code: number) => void;
    const reply = await new Promise<StartReply>((resolve, reject) => {
      onMessage = resolve;
      onError = reject;
      onExit = (code) => reject(new Error(`the database thread exited with code ${code} while starting`));
      worker.once('message', onMessage).once('error', onError).once('exit', onExit);
    }).finally(() => worker.off('message', onMessage).off('error', onError).off('exit', onExit));
    if (!reply.started) {
      await worker.terminate();
      throw rebuildError(reply.error);
    }
    return new PgliteThread(worker);
  }

  /**
   * How long the oldest unanswered call has waited, in milliseconds (0 when none is): the database's queue as a
   * time, for load shedding. The map keeps the order calls were posted in, so its first entry is the oldest.
   */
  /** Calls posted to the database thread and not yet answered. */
  get waitingCalls(): number {
    return this.pending.size;
  }

  waitingMs(): number {
    const oldest = this.pending.values().next().value;
    return oldest ? performance.now() - oldest.since : 0;
  }

  async query<T>(sql: string, params?: unknown[], options?: QueryOptions, tx?: number): Promise<Results<T>> {
    return (await this.call({ op: 'query', sql, params, rowMode: options?.rowMode, keepText: keptAsText(options), tx })) as Results<T>;
  }

  async exec(sql: string, tx?: number): Promise<void> {
    await this.call({ op: 'exec', sql, tx });
  }

  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const id = (await this.call({ op: 'begin' })) as number;
    // drizzle calls query only (savepoints too); nothing here uses the rest of PGlite's Transaction.
    const tx = {
      query: <R>(sql: string, params?: unknown[], options?: QueryOptions) => this.query<R>(sql, params, options, id),
      exec: (sql: string) => this.exec(sql, id),
    } as unknown as Transaction;
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      await this.call({ op: 'end', tx: id, commit: false }).catch(() => {});
      throw err;
    }
    await this.call({ op: 'end', tx: id, commit: true });
    return result;
  }

  async dumpDataDir(compression?: 'gzip' | 'none' | 'auto'): Promise<Blob> {
    const bytes = (await this.call({ op: 'dump', compression })) as Uint8Array;
    return new Blob([bytes]);
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    await this.call({ op: 'close' });
    this.stop('it was closed');
    await this.worker.terminate();
    await exited;
  }

  private call(request: ThreadCall): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, since: performance.now() });
      this.worker.postMessage({ ...request, id });
    });
  }

  private settle(reply: ThreadReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error) pending.reject(rebuildError(reply.error));
    else pending.resolve(reply.value);
  }

  /** The thread is gone: calls in flight and later ones fail as a lost connection does (answered 503). */
  private stop(reason: string): void {
    if (this.stopped) return;
    // SQLSTATE 08006 (connection failure): isDatabaseUnreachable() then answers 503, not 500.
    this.stopped = Object.assign(new Error(`the embedded database is not running: ${reason}`), { code: '08006' });
    for (const pending of this.pending.values()) pending.reject(this.stopped);
    this.pending.clear();
    this.worker.unref();
  }
}

/**
 * The types whose parsers keep PostgreSQL's text. Functions cannot be posted to the thread, and drizzle's parsers
 * only keep dates, timestamps and intervals as text: any other parser is refused rather than silently not applied.
 */
function keptAsText(options?: QueryOptions): number[] | undefined {
  const parsers = options?.parsers;
  if (!parsers) return undefined;
  return Object.entries(parsers).map(([oid, parser]) => {
    if (parser(PROBE, Number(oid)) !== PROBE) throw new Error(`only text-keeping parsers reach the database thread (type ${oid})`);
    return Number(oid);
  });
}
