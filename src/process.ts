import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, type Config } from './config.js';
import { StartupError } from './db/data-dir.js';

/*
 * What the two entry points (`server.ts`, `worker.ts`) share as processes: reading the configuration, start-up
 * failures in one line, and a graceful stop on SIGTERM/SIGINT.
 */

/**
 * Runs an entry point's start. A StartupError (DATA_DIR not writable, full or in use; database unreachable) is one
 * line on stderr and its exit code: the operator's problem, not a bug, so no stack trace. Anything else is a bug.
 */
export function runMain(program: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof StartupError) {
      console.error(`${program}: ${err.message}`);
      process.exit(err.exitCode);
    }
    console.error(`${program}: failed to start:`, err);
    process.exit(1);
  });
}

/** For the operator at the terminal (start banner, generated password): stderr, so stdout stays JSON log lines. */
export function tellOperator(text: string): void {
  process.stderr.write(text);
}

/** The configuration, or exit 78 (EX_CONFIG) naming what is wrong. */
export function configOrExit(program: string): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${program}: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
}

export interface Stoppable {
  stop(): Promise<void>;
}

export interface StopPlan {
  readonly app: FastifyInstance;
  /** Stopped in this order before the app closes (the sender first, while the database is still open). */
  readonly parts: () => readonly (Stoppable | null)[];
  readonly message: string;
  /** After this long the process exits with 1, whatever is still running. */
  readonly capMs: number;
}

/**
 * Handles SIGTERM/SIGINT from the start. A signal before `arm` (during start-up: migrations can take a while) waits
 * for it; after, the parts stop, the app closes and the process exits 0. A second signal changes nothing.
 */
export function stopOnSignals(): { arm(plan: StopPlan): void } {
  let plan: StopPlan | null = null;
  let requested: string | null = null;
  let stopping = false;
  const stop = (signal: string) => {
    if (!plan) {
      requested ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    const { app, parts, message, capMs } = plan;
    app.log.info({ signal }, message);
    setTimeout(() => {
      app.log.error(`shutdown took longer than ${capMs / 1000} s; exiting`);
      process.exit(1);
    }, capMs).unref();
    void (async () => {
      for (const part of parts()) await part?.stop();
      await app.close();
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return {
    arm(next) {
      plan = next;
      if (requested) stop(requested);
    },
  };
}
