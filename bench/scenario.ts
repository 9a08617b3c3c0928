import type autocannon from 'autocannon';
import type { Db } from '../src/db/client.js';
import type { Seed } from './seeds.js';

/**
 * The two kinds of bench scenario, in a module of their own so the per-area scenario files
 * (`bench/<area>.scenarios.ts`) and `bench/scenarios.ts`, which gathers them, import it without a cycle.
 *
 * - A load scenario names the requests autocannon cycles through for a fixed time; the figures are throughput and
 *   latency. `requests` runs in the driver process with the seed's result, so it may vary each request with
 *   `setupRequest`.
 * - A job scenario runs one piece of work to its end (an import, a campaign send) from the driver process against
 *   a service started for it alone; the figures are whatever the job answers, plus the service's peak RSS.
 */
export interface LoadScenario<T = unknown> {
  readonly name: string;
  readonly seed: Seed<T>;
  requests(fixture: T): autocannon.Request[];
  /**
   * Concurrent connections when BENCH_CONNECTIONS is not set: for requests heavy enough that the default 50 only
   * queue into time-outs on a small machine (a count over a million subscribers).
   */
  readonly connections?: number;
}

/** What a job gets besides its fixture: the running service, and a super user's session key. */
export interface JobContext {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  /** Sent as the `php-auth-pw` header, it authenticates as the bench super user. */
  readonly sessionKey: string;
  /** BENCH_CONNECTIONS, BENCH_DURATION and BENCH_WARMUP, for jobs that drive a load themselves. */
  readonly connections: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  /**
   * What bench/run.ts sets on top of its own environment for the service (DATABASE_URL, DATA_DIR, LOG_LEVEL …).
   * The driver inherits the rest, so `{ ...process.env, ...serviceEnv }` is the service's environment: for jobs that
   * start processes of their own beside it (campaign workers).
   */
  readonly serviceEnv: Readonly<Record<string, string>>;
}

/** Figures a job reports; each becomes a field of the scenario's JSON line, so keep the names snake_case. */
export type JobFigures = Record<string, number | string>;

export interface JobScenario<T = unknown> {
  readonly name: string;
  readonly seed: Seed<T>;
  job(fixture: T, context: JobContext): Promise<JobFigures>;
  /**
   * Run by bench/run.ts after the job's service has stopped (SIGTERM, a graceful stop), against the bench database:
   * figures that check what the job's answers promised was stored. They join the job's line.
   */
  verify?(db: Db, fixture: T, figures: JobFigures): Promise<JobFigures>;
  /**
   * Another job run earlier in the same bench run: the line gets `ratio_to_baseline`, this job's `requests_per_s`
   * divided by that one's.
   */
  readonly baseline?: string;
  /** Several earlier jobs to compare with: the line gets `ratio_to_<name>` (dashes as underscores) for each. */
  readonly baselines?: readonly string[];
  /** The figure `baseline(s)` compare (this job's and theirs); default `requests_per_s`. */
  readonly rate?: string;
}

export type Scenario<T = unknown> = LoadScenario<T> | JobScenario<T>;

export function isJobScenario(scenario: Scenario): scenario is JobScenario {
  return 'job' in scenario;
}

/** Keeps the fixture type of each entry checked while the registry holds them all. */
export function scenario<T>(definition: LoadScenario<T> | JobScenario<T>): Scenario {
  return definition as unknown as Scenario;
}

/** Headers that authenticate a request as the session's administrator. */
export const withSession = (sessionKey: string) => ({ 'php-auth-pw': sessionKey, accept: 'application/json' });

/** An integer in [first, last], both included. */
export function randomBetween(first: number, last: number): number {
  return first + Math.floor(Math.random() * (last - first + 1));
}
