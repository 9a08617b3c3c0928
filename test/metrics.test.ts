import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { mailQueue } from '../src/db/schema/index.js';
import { startTestApp, type TestApp } from './helper.js';
import { listWithMembers, parkOtherCampaigns, sendableCampaign, withWorker } from './sending/send-fixtures.js';

/*
 * GET /metrics: who may read it, what it says after real work, and a real Prometheus (Debian's package) scraping a
 * running service and answering a query about it.
 */

const TOKEN = 'metrics-test-token-0123456789';
const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';

/** The value of one series in the text format (`name{labels} value`), or 0 when it is not there yet. */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('GET /metrics', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    headers = (await t.adminWithSession()).headers;
  });
  after(() => t.close());

  test('answers loopback clients in the Prometheus text format, and no one else when METRICS_TOKEN is unset', async () => {
    const res = await t.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    for (const name of [
      'mailroom_process_cpu_seconds_total',
      'mailroom_nodejs_eventloop_lag_seconds',
      'mailroom_tracking_backlog',
      'mailroom_database_pool_waiting',
      'mailroom_database_oldest_wait_seconds',
      'mailroom_deliveries_waiting{campaign_status="inprocess"}',
      'mailroom_mail_queue_waiting{state="new"}',
      'mailroom_mail_queue_waiting{state="retrying"}',
      'mailroom_webhooks_pending',
      'mailroom_email_search_pending_ids',
    ]) {
      assert.ok(res.body.includes(`\n${name} `) || res.body.startsWith(`${name} `), `${name} missing`);
    }
    const outside = await t.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
    assert.equal(outside.statusCode, 403);
    assert.deepEqual(outside.json(), { message: 'GET /metrics answers loopback clients only unless METRICS_TOKEN is set.' });
  });

  test('request durations by route pattern and status, deliveries by outcome and the queue by campaign status', async () => {
    const before = (await t.inject({ method: 'GET', url: '/metrics' })).body;
    const { list } = await listWithMembers(t.db, 3);
    await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}`, headers });
    await t.inject({ method: 'GET', url: '/api/v2/lists/999999', headers });
    const campaign = await sendableCampaign(t.db, [list.id]);
    const sent = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers });
    assert.equal(sent.statusCode, 200, sent.body);
    await parkOtherCampaigns(t.db, campaign.id);
    await withWorker(t.ctx, {}, async (worker) => {
      // Frozen, not yet sent: the three wait under a campaign being sent.
      await worker.runOnce();
      const waiting = (await t.inject({ method: 'GET', url: '/metrics' })).body;
      assert.ok(valueOf(waiting, 'mailroom_deliveries_waiting{campaign_status="inprocess"}') <= 3);
      for (let i = 0; i < 5; i++) await worker.runOnce();
    });
    const after = (await t.inject({ method: 'GET', url: '/metrics' })).body;
    const delta = (series: string) => valueOf(after, series) - valueOf(before, series);
    assert.equal(delta('mailroom_deliveries_total{outcome="sent"}'), 3);
    assert.equal(delta('mailroom_http_request_duration_seconds_count{route="/api/v2/lists/:listId",method="GET",status="200"}'), 1);
    assert.equal(delta('mailroom_http_request_duration_seconds_count{route="/api/v2/lists/:listId",method="GET",status="404"}'), 1);
    assert.equal(valueOf(after, 'mailroom_deliveries_waiting{campaign_status="inprocess"}'), 0);
    // A system mail that failed once and waits for its retry shows in the mail queue's gauge.
    const [queued] = await t.db
      .insert(mailQueue)
      .values({
        kind: 'confirmation',
        message: { to: 'x@example.org', subject: 's', text: 't' },
        attempts: 1,
        nextAttemptAt: new Date(Date.now() + 3_600_000),
        giveUpAt: new Date(Date.now() + 7_200_000),
      })
      .returning({ id: mailQueue.id });
    const queue = (await t.inject({ method: 'GET', url: '/metrics' })).body;
    await t.db.delete(mailQueue).where(eq(mailQueue.id, queued!.id));
    assert.equal(valueOf(queue, 'mailroom_mail_queue_waiting{state="retrying"}'), 1);
    assert.ok(!after.includes('/api/v2/lists/999999') && !after.includes(`/api/v2/lists/${list.id}"`), 'paths never become labels');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ metricsToken: TOKEN });
  });
  after(() => t.close());

  test('needs the bearer token, from any address', async () => {
    const none = await t.inject({ method: 'GET', url: '/metrics' });
    assert.equal(none.statusCode, 403);
    assert.deepEqual(none.json(), { message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' });
    const wrong = await t.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } });
    assert.equal(wrong.statusCode, 403);
    const right = await t.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` }, remoteAddress: '203.0.113.9' });
    assert.equal(right.statusCode, 200);
    assert.match(right.body, /^# HELP /m);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('a real Prometheus scrapes the service', () => {
  const present = existsSync(PROMETHEUS);
  let t: TestApp;
  let prometheus: ChildProcess | null = null;
  let dir = '';
  before(async () => {
    if (!present) return;
    t = await startTestApp({ metricsToken: TOKEN });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    prometheus?.kill('SIGKILL');
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('and answers a query about it', async (ctx) => {
    if (!present) {
      if (process.env.REQUIRE_PROMETHEUS === '1') assert.fail(`Prometheus is missing at ${PROMETHEUS} (apt-get install prometheus)`);
      return ctx.skip(`no Prometheus at ${PROMETHEUS}: apt-get install prometheus`);
    }
    const { port } = t.app.server.address() as { port: number };
    dir = mkdtempSync(join(tmpdir(), 'mailroom-prometheus-'));
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: mailroom',
        `    authorization: { credentials: ${TOKEN} }`,
        `    static_configs: [{ targets: ['127.0.0.1:${port}'] }]`,
        '',
      ].join('\n'),
    );
    const web = await freePort();
    prometheus = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${web}`], {
      stdio: 'ignore',
    });
    const query = async (q: string) => {
      const res = await fetch(`http://127.0.0.1:${web}/api/v1/query?query=${encodeURIComponent(q)}`);
      return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
    };
    // Some traffic of our own to find again in Prometheus.
    for (let i = 0; i < 3; i++) await fetch(`http://127.0.0.1:${port}/healthz`);
    const deadline = Date.now() + 60_000;
    let found: Awaited<ReturnType<typeof query>> = [];
    while (Date.now() < deadline) {
      found = await query('mailroom_http_request_duration_seconds_count{route="/healthz",status="200"}').catch(() => []);
      if (found.length > 0 && Number(found[0]!.value[1]) >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(found.length > 0, 'Prometheus never had the series');
    assert.ok(Number(found[0]!.value[1]) >= 3, JSON.stringify(found));
    assert.equal(found[0]!.metric.job, 'mailroom');
    const up = await query('up{job="mailroom"}');
    assert.equal(up[0]?.value[1], '1');
  });
});
