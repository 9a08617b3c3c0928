import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { keysForDomain, type DkimKey } from '../../shared/dkim-keys.js';
import type { DkimSigner } from './signer.js';

/*
 * DKIM signing off the sending loop's thread: a pool of worker threads, each signing whole messages (canonical body,
 * body hash, header hash, the private-key operation) while the main thread composes the next ones and speaks SMTP.
 * Per message the main thread copies the personal part of the mail (a few kilobytes) into a transferred buffer and
 * gets the DKIM-Signature text back; a buffer that recurs in many messages (a campaign's attachment tail, tens of
 * kilobytes) goes to each thread once and is named by an id afterwards, and is forgotten there when the main
 * thread's copy is collected.
 */

/** A part of a message: its bytes, or the id of a shared buffer the thread holds. */
export interface SignRequest {
  readonly id: number;
  readonly parts: readonly (Uint8Array | number)[];
  /** Shared buffers this thread has not had yet, by id. */
  readonly share?: readonly (readonly [number, Uint8Array])[];
}
export type ThreadMessage = SignRequest | { readonly forget: readonly number[] };
export interface SignReply {
  readonly id: number;
  /** The DKIM-Signature header(s), or null when no key covers the From domain. */
  readonly headers: string | null;
  /** The From domain no key covers (first message from it on this thread). */
  readonly unsigned?: string;
  readonly error?: string;
}

export interface SigningPoolOptions {
  /** How many threads sign (at least 1). */
  readonly threads: number;
  /** Told once per From domain that no key signs. */
  readonly onUnsigned?: (domain: string) => void;
}

/**
 * Threads when DKIM_THREADS is not set: one on a machine of two cores or fewer (measured: the second thread took
 * CPU from the sending loop and the database, for no gain; README "Benchmarks"), else one per core but one, up to 4.
 */
export function defaultSigningThreads(): number {
  const cores = availableParallelism();
  return cores <= 2 ? 1 : Math.min(4, cores - 1);
}

/** Under tsx (tests, `npm run dev`) the sources are TypeScript; built, they are dist/'s JavaScript. */
const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(`./sign-thread.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);

/** A signing thread; from the sources it first registers tsx, whose loader Node does not pass on to threads. */
function spawnThread(keys: readonly DkimKey[]): Worker {
  const workerData = { keys };
  if (!fromSources) return new Worker(workerUrl, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/** Buffers at least this long are shared by id once seen twice; shorter ones are cheaper to copy each time. */
const SHARE_FROM_BYTES = 1024;

interface Thread {
  worker: Worker;
  inFlight: number;
  /** Ids of the shared buffers it holds. */
  readonly known: Set<number>;
}

interface Pending {
  readonly thread: Thread;
  resolve(headers: string | null): void;
  reject(err: Error): void;
}

export function createSigningPool(keys: readonly DkimKey[], options: SigningPoolOptions): DkimSigner {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let closed = false;

  const seenOnce = new WeakSet<Buffer>();
  const sharedIds = new WeakMap<Buffer, number>();
  let nextShared = 1;
  const collected = new FinalizationRegistry<number>((id) => {
    for (const thread of threads) if (thread.known.delete(id)) thread.worker.postMessage({ forget: [id] } satisfies ThreadMessage);
  });

  const reported = new Set<string>();
  const onReply = (reply: SignReply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if (--call.thread.inFlight === 0) call.thread.worker.unref();
    if (reply.unsigned !== undefined && !reported.has(reply.unsigned)) {
      reported.add(reply.unsigned);
      options.onUnsigned?.(reply.unsigned);
    }
    if (reply.error !== undefined) call.reject(new Error(`DKIM signing failed: ${reply.error}`));
    else call.resolve(reply.headers);
  };

  const start = (): Thread => {
    const thread: Thread = { worker: spawnThread(keys), inFlight: 0, known: new Set() };
    const fail = (why: string) => {
      if (closed) return;
      // Its messages fail (the sender retries them later); a new thread takes its place.
      for (const [id, call] of pending) {
        if (call.thread !== thread) continue;
        pending.delete(id);
        call.reject(new Error(`DKIM signing thread ${why}`));
      }
      const at = threads.indexOf(thread);
      if (at >= 0) threads[at] = start();
    };
    thread.worker.on('message', onReply);
    thread.worker.on('error', (err) => fail(`failed: ${err.message}`));
    thread.worker.on('exit', (code) => fail(`exited with code ${code}`));
    thread.worker.unref();
    return thread;
  };
  const threads: Thread[] = Array.from({ length: Math.max(1, options.threads) }, start);

  /** The parts as the thread gets them: shared buffers by id (and their bytes, the first time), the rest copied. */
  const prepare = (raw: readonly Buffer[], thread: Thread) => {
    const parts: (Uint8Array | number)[] = [];
    const share: [number, Uint8Array][] = [];
    const transfer: ArrayBuffer[] = [];
    for (const chunk of raw) {
      let id = sharedIds.get(chunk);
      if (id === undefined && chunk.length >= SHARE_FROM_BYTES) {
        if (seenOnce.has(chunk)) {
          sharedIds.set(chunk, (id = nextShared++));
          collected.register(chunk, id);
        } else seenOnce.add(chunk);
      }
      if (id === undefined) {
        // A copy of exactly its bytes (a Buffer may be a view into a larger pool), moved rather than copied again.
        const copy = new Uint8Array(chunk);
        parts.push(copy);
        transfer.push(copy.buffer);
        continue;
      }
      if (!thread.known.has(id)) {
        thread.known.add(id);
        share.push([id, new Uint8Array(chunk)]);
      }
      parts.push(id);
    }
    return { parts, share, transfer };
  };

  const headers = (raw: readonly Buffer[]): Promise<string | null> => {
    if (closed) return Promise.reject(new Error('the DKIM signing pool is closed'));
    let thread = threads[0]!;
    for (const other of threads) if (other.inFlight < thread.inFlight) thread = other;
    const id = nextId++;
    const { parts, share, transfer } = prepare(raw, thread);
    const request: SignRequest = share.length > 0 ? { id, parts, share } : { id, parts };
    return new Promise((resolve, reject) => {
      pending.set(id, { thread, resolve, reject });
      if (thread.inFlight++ === 0) thread.worker.ref();
      thread.worker.postMessage(request, transfer);
    });
  };

  const byDomain = new Map<string, boolean>();
  return {
    covers(domain) {
      const name = domain.toLowerCase();
      let covered = byDomain.get(name);
      if (covered === undefined) byDomain.set(name, (covered = keysForDomain(keys, name).length > 0));
      return covered;
    },
    headers,
    async sign(raw) {
      const signed = await headers(raw);
      return signed === null ? raw : [Buffer.from(signed, 'latin1'), ...raw];
    },
    async close() {
      closed = true;
      for (const [id, call] of pending) {
        pending.delete(id);
        call.reject(new Error('the DKIM signing pool is closed'));
      }
      await Promise.all(threads.map((thread) => thread.worker.terminate()));
    },
  };
}
