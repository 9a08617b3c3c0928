import autocannon from 'autocannon';
import { isJobScenario, type JobFigures, type JobScenario, type LoadScenario } from './scenario.js';
import { scenarios } from './scenarios.js';

/**
 * The load generator and job runner, a process of its own so it does not share a CPU budget (event loop, GC) with
 * the service. Input: one JSON argument (`DriveInput`). Output: one JSON line (`DriveOutput`) on stdout.
 */
export interface DriveInput {
  scenario: string;
  url: string;
  fixture: unknown;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** The bench super user's session key, handed to job scenarios. */
  sessionKey: string;
  /** What the service's environment adds to this process's (see JobContext). */
  serviceEnv: Record<string, string>;
}

export interface LoadOutput {
  requests_per_s: number;
  latency_p50_ms: number;
  /** autocannon's histogram has no p95: this one is computed from every response time of the measured run. */
  latency_p95_ms: number;
  latency_p97_5_ms: number;
  latency_p99_ms: number;
  /** The slowest answered request (a request with no answer within autocannon's 10 s counts in `timeouts`). */
  latency_max_ms: number;
  requests_total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  status_codes: Record<string, number>;
}

/** A job's own figures, and the wall-clock seconds the job took as seen from the driver. */
export type JobOutput = JobFigures & { elapsed_s: number };

export type DriveOutput = LoadOutput | JobOutput;

async function runLoad(scenario: LoadScenario, input: DriveInput): Promise<LoadOutput> {
  const options = { url: input.url, connections: input.connections, requests: scenario.requests(input.fixture) };

  // A short unmeasured run first, so JIT compilation and connection set-up stay out of the figures.
  if (input.warmupSeconds > 0) await autocannon({ ...options, duration: input.warmupSeconds });
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ ...options, duration: input.durationSeconds }, (err, res) => (err ? reject(err) : resolve(res)));
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  times.sort((a, b) => a - b);
  const p95 = times.length > 0 ? times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]! : 0;

  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count ?? 0;
  return {
    requests_per_s: result.requests.average,
    latency_p50_ms: result.latency.p50,
    latency_p95_ms: Math.round(p95 * 10) / 10,
    latency_p97_5_ms: result.latency.p97_5,
    latency_p99_ms: result.latency.p99,
    latency_max_ms: result.latency.max,
    requests_total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    status_codes: statusCodes,
  };
}

async function runJob(scenario: JobScenario, input: DriveInput): Promise<JobOutput> {
  const started = process.hrtime.bigint();
  const figures = await scenario.job(input.fixture, {
    baseUrl: input.url,
    sessionKey: input.sessionKey,
    connections: input.connections,
    durationSeconds: input.durationSeconds,
    warmupSeconds: input.warmupSeconds,
    serviceEnv: input.serviceEnv,
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { elapsed_s: Math.round(elapsed * 1000) / 1000, ...figures };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '') as DriveInput;
  const scenario = scenarios.find((s) => s.name === input.scenario);
  if (!scenario) throw new Error(`unknown scenario ${input.scenario}`);
  const output = isJobScenario(scenario) ? await runJob(scenario, input) : await runLoad(scenario, input);
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((err: unknown) => {
  console.error('bench driver failed:', err);
  process.exit(1);
});
