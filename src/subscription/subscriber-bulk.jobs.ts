import type { AppContext } from '../context.js';

/*
 * The bulk jobs this process is running, per application, so that closing the application lets each finish the
 * batch it is in and stop (state `interrupted`) before the database closes, instead of dying in mid-statement.
 */

interface Runner {
  readonly running: Set<Promise<void>>;
  stopping: boolean;
}

const runners = new WeakMap<AppContext, Runner>();

function runnerOf(ctx: AppContext): Runner {
  let runner = runners.get(ctx);
  if (!runner) {
    runner = { running: new Set(), stopping: false };
    runners.set(ctx, runner);
  }
  return runner;
}

/** Whether the application is closing: a job checks this between batches. */
export function bulkStopping(ctx: AppContext): boolean {
  return runnerOf(ctx).stopping;
}

/** Runs a job in the background, tracked until it settles (it handles its own errors). */
export function runInBackground(ctx: AppContext, job: Promise<void>): void {
  const { running } = runnerOf(ctx);
  const tracked = job.finally(() => running.delete(tracked));
  running.add(tracked);
}

/** Asks the running jobs to stop after their current batch and waits for them (on application close). */
export async function stopBulkJobs(ctx: AppContext): Promise<void> {
  const runner = runnerOf(ctx);
  runner.stopping = true;
  await Promise.allSettled([...runner.running]);
}
