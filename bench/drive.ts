import autocannon from 'autocannon';
import { scenarios } from './scenarios.js';

/**
 * The load generator, a process of its own so it does not share a CPU budget (event loop, GC) with the service.
 * Input: one JSON argument (`DriveInput`). Output: one JSON line (`DriveOutput`) on stdout.
 */
export interface DriveInput {
  scenario: string;
  url: string;
  fixture: unknown;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface DriveOutput {
  requests_per_s: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  requests_total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  status_codes: Record<string, number>;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '') as DriveInput;
  const scenario = scenarios.find((s) => s.name === input.scenario);
  if (!scenario) throw new Error(`unknown scenario ${input.scenario}`);
  const options = { url: input.url, connections: input.connections, requests: scenario.requests(input.fixture) };

  // A short unmeasured run first, so JIT compilation and connection set-up stay out of the figures.
  if (input.warmupSeconds > 0) await autocannon({ ...options, duration: input.warmupSeconds });
  const result = await autocannon({ ...options, duration: input.durationSeconds });

  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count ?? 0;
  const output: DriveOutput = {
    requests_per_s: result.requests.average,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    requests_total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    status_codes: statusCodes,
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((err: unknown) => {
  console.error('bench driver failed:', err);
  process.exit(1);
});
