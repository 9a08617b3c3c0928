import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { createDatabase, queryRows, type Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import type { DriveInput, DriveOutput } from './drive.js';
import { isJobScenario, type JobFigures } from './scenario.js';
import { scenarios, type Scenario } from './scenarios.js';
import { superUserSession, type Seed } from './seeds.js';

/*
 * `npm run bench [-- [--pglite] [scenario …]]`: seeds a database, starts the service as its own process, drives it
 * with autocannon from another process (load scenarios, all against one service), then runs each job scenario from
 * that other process against a service started for the job alone, and prints one JSON line per scenario on stdout
 * (everything else goes to stderr). The service migrates at start as usual; the bench migrates first only because it seeds before the
 * service starts (PGlite admits one process at a time), so the service finds nothing left to apply.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
// Another name lets two bench runs share one server without dropping each other's database.
const BENCH_DATABASE = process.env.BENCH_DATABASE_NAME || 'mailroom_bench';
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(BENCH_DATABASE)) {
  console.error(`bench: BENCH_DATABASE_NAME must be a lower-case SQL identifier, got ${JSON.stringify(BENCH_DATABASE)}`);
  process.exit(2);
}
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

interface Options {
  pglite: boolean;
  filters: string[];
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

function positiveInteger(name: string, fallback: number, minimum = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    console.error(`bench: ${name} must be an integer of at least ${minimum}, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

function parseOptions(argv: string[]): Options {
  const flags = argv.filter((a) => a.startsWith('-'));
  const unknown = flags.filter((f) => f !== '--pglite');
  if (unknown.length > 0) {
    console.error(`bench: unknown option ${unknown.join(' ')}\nusage: npm run bench -- [--pglite] [scenario …]`);
    process.exit(2);
  }
  return {
    pglite: flags.includes('--pglite'),
    filters: argv.filter((a) => !a.startsWith('-')),
    connections: positiveInteger('BENCH_CONNECTIONS', 50),
    durationSeconds: positiveInteger('BENCH_DURATION', 10),
    warmupSeconds: positiveInteger('BENCH_WARMUP', 1, 0),
  };
}

/** Scenarios whose name contains one of the filters, or is one written `=name` (all of them without filters). */
function selectScenarios(filters: string[]): Scenario[] {
  const matches = (name: string, filter: string) => (filter.startsWith('=') ? name === filter.slice(1) : name.includes(filter));
  const selected = scenarios.filter((s) => filters.length === 0 || filters.some((f) => matches(s.name, f)));
  if (selected.length === 0) {
    console.error(`bench: no scenario matches ${filters.join(' ')}; scenarios: ${scenarios.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  return selected;
}

interface BenchDatabase {
  kind: 'postgres' | 'pglite';
  /** DATABASE_URL and DATA_DIR for the service. */
  serviceEnv: { DATABASE_URL: string; DATA_DIR: string };
  open(): Promise<Database>;
  /** Removes the temp DATA_DIR; the PostgreSQL database is kept for inspection. */
  cleanup(): void;
}

/** A fresh `mailroom_bench` on the server of BENCH_DATABASE_URL (dropped and created), or PGlite in a temp dir. */
async function prepareDatabase(pglite: boolean): Promise<BenchDatabase> {
  if (pglite) {
    const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
    return {
      kind: 'pglite',
      serviceEnv: { DATABASE_URL: '', DATA_DIR: dataDir },
      open: () => createDatabase({ databaseUrl: '', dataDir }),
      cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const serverUrl = new URL(process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL);
  // Administrative work happens in the URL's own database, unless that is the one being recreated.
  if (serverUrl.pathname === `/${BENCH_DATABASE}` || serverUrl.pathname === '/') serverUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  try {
    await admin.connect();
  } catch (err) {
    console.error(`bench: cannot reach PostgreSQL at ${serverUrl.host}: ${(err as Error).message} (set BENCH_DATABASE_URL, or use --pglite)`);
    process.exit(1);
  }
  try {
    await admin.query(`drop database if exists "${BENCH_DATABASE}" with (force)`);
    await admin.query(`create database "${BENCH_DATABASE}"`);
  } finally {
    await admin.end();
  }
  const benchUrl = new URL(serverUrl);
  benchUrl.pathname = `/${BENCH_DATABASE}`;
  // The service still wants a DATA_DIR (its mail outbox); a temp one keeps ./data out of it.
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
  return {
    kind: 'postgres',
    serviceEnv: { DATABASE_URL: benchUrl.toString(), DATA_DIR: dataDir },
    open: () => createDatabase({ databaseUrl: benchUrl.toString(), poolSize: 2 }),
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

interface Seeded {
  /** The fixture of each scenario, by name. */
  fixtures: Map<string, unknown>;
  /** The bench super user's session key, which job scenarios get. */
  sessionKey: string;
}

/** Runs every selected scenario's seed, each seed once, and answers the fixture of each scenario. */
async function seedAll(database: Database, selected: Scenario[]): Promise<Seeded> {
  const done = new Map<string, Promise<unknown>>();
  const use = <U>(seed: Seed<U>): Promise<U> => {
    if (!done.has(seed.name)) done.set(seed.name, seed.run(database.db, use));
    return done.get(seed.name) as Promise<U>;
  };
  const fixtures = new Map<string, unknown>();
  for (const scenario of selected) fixtures.set(scenario.name, await use(scenario.seed));
  // After the scenarios' own seeds, so a seed that counts administrators finds only what it made itself
  // (those that use the super user have made it already, and this answers the same one).
  const { sessionKey } = await use(superUserSession);
  return { fixtures, sessionKey };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Node options for the service only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (space-separated). */
const serviceNodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

async function startService(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  // Started as `npm start` runs it (built JavaScript, see scripts/build.ts), so memory figures are the service's own.
  const service = spawn(process.execPath, ['--enable-source-maps', ...serviceNodeArgs, 'dist/server.js'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The service's own messages and warnings go to stderr, so stdout carries only the bench's JSON lines.
  service.stdout?.pipe(process.stderr);
  let gone = false;
  void exited(service).then(() => (gone = true));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the service exited during start (code ${service.exitCode})`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (response.ok) return service;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  service.kill('SIGTERM');
  throw new Error('the service did not become ready within 60 s');
}

async function stopService(service: ChildProcess): Promise<void> {
  if (service.exitCode !== null || service.signalCode !== null) return;
  service.kill('SIGTERM');
  const timer = setTimeout(() => service.kill('SIGKILL'), 25_000);
  const code = await exited(service);
  clearTimeout(timer);
  if (code !== 0) console.error(`bench: the service exited with code ${code} on SIGTERM`);
}

/** Runs the driver process for one scenario and answers its figures. */
async function drive(input: DriveInput): Promise<DriveOutput> {
  const driver = spawn(process.execPath, ['--import', 'tsx', 'bench/drive.ts', JSON.stringify(input)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  driver.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await exited(driver);
  const last = stdout.trim().split('\n').at(-1);
  if (code !== 0 || !last) throw new Error(`the driver exited with code ${code}`);
  return JSON.parse(last) as DriveOutput;
}

/**
 * The peak resident set size of a process in MB (VmHWM, Linux only; undefined elsewhere or once it has exited).
 * It covers the process's whole life, so a fresh service per job makes it the job's peak.
 */
function peakRssMegabytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : undefined;
  } catch {
    return undefined;
  }
}

function printLine(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const selected = selectScenarios(options.filters);
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: root, stdio: 'inherit' });
  const bench = await prepareDatabase(options.pglite);

  let service: ChildProcess | undefined;
  const interrupt = () => {
    service?.kill('SIGTERM');
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  try {
    const setupStart = Date.now();
    const database = await bench.open();
    let fixtures: Map<string, unknown>;
    let sessionKey: string;
    let serverVersion: string | undefined;
    try {
      await migrate(database);
      ({ fixtures, sessionKey } = await seedAll(database, selected));
      const [row] = await queryRows<{ server_version: string }>(database.db, sql`show server_version`);
      serverVersion = row?.server_version;
    } finally {
      await database.close();
    }

    const cpu = cpus();
    printLine({
      environment: {
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cpus: cpu.length,
        cpu_model: cpu[0]?.model.trim() ?? 'unknown',
        memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
        database: bench.kind,
        database_version: serverVersion,
        setup_s: (Date.now() - setupStart) / 1000, // open, migrate and seed
      },
    });

    const port = await freePort();
    // What the service gets on top of this process's environment; jobs get it too, to start workers like it.
    const serviceOverrides: Record<string, string> = {
      ...bench.serviceEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEND_WORKER: 'off',
      // Every request comes from one address (the driver's): the per-address tracking limit would record next to
      // none of what the tracking scenarios measure. Set BENCH_TRACKING_RATE to bench with it.
      TRACKING_RATE: process.env.BENCH_TRACKING_RATE ?? '0',
      // The same for the requests one address may have in flight: the driver's connections are all one client.
      CLIENT_MAX_REQUESTS: process.env.BENCH_CLIENT_MAX_REQUESTS ?? '0',
      ADMIN_LOGIN: '',
      ADMIN_PASSWORD: '',
    };
    const serviceEnv = { ...process.env, ...serviceOverrides };
    // BENCH_CONNECTIONS when set, else the scenario's own count (LoadScenario.connections), else the default.
    const connectionsOf = (scenario: Scenario) =>
      process.env.BENCH_CONNECTIONS || isJobScenario(scenario) || !scenario.connections ? options.connections : scenario.connections;
    const driveInput = (name: string): DriveInput => ({
      scenario: name,
      url: `http://127.0.0.1:${port}`,
      fixture: fixtures.get(name),
      connections: connectionsOf(selected.find((s) => s.name === name)!),
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      sessionKey,
      serviceEnv: serviceOverrides,
    });

    // Load scenarios first, all against one service, so they measure the seeded data before any job writes to it.
    const loads = selected.filter((s) => !isJobScenario(s));
    if (loads.length > 0) service = await startService(serviceEnv, port);
    for (const scenario of loads) {
      const common = {
        scenario: scenario.name,
        database: bench.kind,
        connections: connectionsOf(scenario),
        duration_s: options.durationSeconds,
      };
      try {
        printLine({ ...common, ...(await drive(driveInput(scenario.name))) });
      } catch (err) {
        // Reported, not fatal: the other scenarios still run.
        printLine({ ...common, error: (err as Error).message });
      }
    }
    if (service) await stopService(service);
    service = undefined;

    // Each job gets a service of its own, so its peak RSS is the job's and not what an earlier scenario left.
    const jobRates = new Map<string, number>();
    for (const scenario of selected.filter(isJobScenario)) {
      const common = { scenario: scenario.name, kind: 'job', database: bench.kind };
      try {
        service = await startService(serviceEnv, port);
        const figures = await drive(driveInput(scenario.name));
        const peak = peakRssMegabytes(service.pid) ?? null;
        let verified = {};
        if (scenario.verify) {
          // After a graceful stop: what the job was answered must be in the database now.
          await stopService(service);
          service = undefined;
          const database = await bench.open();
          try {
            verified = await scenario.verify(database.db, fixtures.get(scenario.name), figures as JobFigures);
          } finally {
            await database.close();
          }
        }
        const rate = (figures as JobFigures)[scenario.rate ?? 'requests_per_s'];
        if (typeof rate === 'number') jobRates.set(scenario.name, rate);
        const ratioTo = (name: string) => {
          const base = jobRates.get(name);
          return typeof rate === 'number' && base ? Math.round((rate / base) * 1000) / 1000 : undefined;
        };
        const base = scenario.baseline ? ratioTo(scenario.baseline) : undefined;
        const ratio: Record<string, string | number> = base !== undefined ? { baseline: scenario.baseline!, ratio_to_baseline: base } : {};
        for (const name of scenario.baselines ?? []) {
          const value = ratioTo(name);
          if (value !== undefined) ratio[`ratio_to_${name.replace(/-/g, '_')}`] = value;
        }
        printLine({ ...common, ...figures, ...verified, ...ratio, service_peak_rss_mb: peak });
      } catch (err) {
        printLine({ ...common, error: (err as Error).message, service_peak_rss_mb: peakRssMegabytes(service?.pid) ?? null });
      } finally {
        if (service) await stopService(service);
        service = undefined;
      }
    }
  } finally {
    if (service) await stopService(service);
    bench.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exit(1);
});
