import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { randomBetween, scenario, withSession, type JobContext, type JobFigures, type Scenario } from './scenario.js';
import { campaignStatsMillion, pixelAudience, pixelUid } from './tracking.seeds.js';

/*
 * The tracking area's bench scenarios (see ./scenario.ts), gathered by ./scenarios.ts.
 *
 * The two pixel scenarios are jobs that drive their own load, so that every answer is counted. The warm-up runs for
 * a time (BENCH_WARMUP, at least 3 s) against a campaign of its own and measures the rate; the measured run then
 * makes that rate × BENCH_DURATION requests, and autocannon waits for every answer (a timed run drops those in
 * flight at the end), so `answered` is exact and, once the service has stopped gracefully, must equal the opens
 * stored for the measured campaign.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

interface PixelFixture {
  campaignId: number;
  warmupCampaignId: number;
  audience: number;
}

/** GETs of the pixel with valid u and m, a random subscriber of the audience each time. */
async function drivePixel(baseUrl: string, fixture: PixelFixture, context: JobContext): Promise<JobFigures> {
  const uids = Array.from({ length: fixture.audience }, (_, i) =>
    createHash('md5')
      .update(pixelUid(i + 1))
      .digest('hex'),
  );
  const load = (campaignId: number, extent: { amount: number } | { duration: number }) => {
    const path = () => `/t/open.gif?u=${uids[randomBetween(0, fixture.audience - 1)]}&m=${campaignId}`;
    return autocannon({
      url: baseUrl,
      connections: context.connections,
      ...extent,
      requests: [{ method: 'GET', path: path(), headers: { 'user-agent': BROWSER }, setupRequest: (r) => ({ ...r, path: path() }) }],
    });
  };
  const warm = await load(fixture.warmupCampaignId, { duration: Math.max(3, context.warmupSeconds) });
  // The median second, so that the first one (JIT compilation, connections) does not drag it down.
  const amount = Math.max(1000, Math.round(warm.requests.p50 * context.durationSeconds));
  const started = performance.now();
  const result = await load(fixture.campaignId, { amount });
  const seconds = (performance.now() - started) / 1000;
  return {
    requests_per_s: Math.round(result.requests.total / seconds),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    requests_total: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    answered: result['2xx'],
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Runs bench/bare-gif-server.ts as a process of its own, as the service runs, and answers its URL and a stop. */
async function startBareServer(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-gif-server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare server exited (code ${code})`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('ready')) resolve();
    });
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

export const trackingScenarios: readonly Scenario[] = [
  scenario({
    // The yardstick, first so that open-pixel can report its ratio to it: the same GIF from a bare Fastify server.
    name: 'open-pixel-bare-fastify',
    seed: pixelAudience,
    async job(fixture, context) {
      const bare = await startBareServer();
      try {
        return await drivePixel(bare.url, fixture, context);
      } finally {
        bare.stop();
      }
    },
  }),
  scenario({
    name: 'open-pixel',
    seed: pixelAudience,
    baseline: 'open-pixel-bare-fastify',
    job: (fixture, context) => drivePixel(context.baseUrl, fixture, context),
    // After the service stopped: every answered open must be stored, none twice.
    async verify(db, { campaignId }, figures) {
      const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from opens where campaign_id = ${campaignId}`);
      const stored = row?.n ?? 0;
      return { stored_opens: stored, all_committed: stored === figures.answered ? 'yes' : 'no' };
    },
  }),
  scenario({
    name: 'campaign-stats-1m',
    seed: campaignStatsMillion,
    requests: ({ sessionKey, firstCampaignId }) => [
      {
        method: 'GET',
        path: '/api/v2/analytics/campaigns',
        headers: withSession(sessionKey),
        // Any page of the 50 campaigns, the one with a million deliveries among them.
        setupRequest: (request) => ({ ...request, path: `/api/v2/analytics/campaigns?after_id=${randomBetween(0, firstCampaignId + 45)}` }),
      },
    ],
  }),
  scenario({
    name: 'campaign-stats-1m-detail',
    seed: campaignStatsMillion,
    requests: ({ sessionKey, campaignId }) => [{ method: 'GET', path: `/api/v2/campaigns/${campaignId}/stats`, headers: withSession(sessionKey) }],
  }),
];
