import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import type { AppContext } from '../../src/context.js';
import { startWorker, type WorkerOptions } from '../../src/sending/worker.js';
import { createTransport } from '../../src/sending/transport.js';
import { startTestApp, type TestApp } from '../helper.js';
import { deliveryRows, listWithMembers, parkOtherCampaigns, recipientsOf, sendableCampaign } from './send-fixtures.js';
import { cert, key, startServer } from './smtp-servers.js';

/*
 * A relay outage needs no human (issue 23). A relay that cannot be used is no recipient's failure: the batch goes
 * back with no attempt spent, SEND_FAILURE_PAUSE does not count it, the campaign shows that it waits for the relay,
 * and sending goes on by itself once the relay answers — every message delivered once into the sink. The timers are
 * shortened (SEND_RELAY_RETRY_MS, SEND_RELAY_RETRY_MAX_MS); the log line says what happened to the relay.
 */

/**
 * A relay in front of the test's sink. `stop('refuse')`: no longer listens (connection refused); `stop('drop')`:
 * accepts and closes at once, counting the tries. Either way, open sessions are cut at their next MAIL FROM, so a
 * message is never cut half-way: what the sink received was confirmed.
 */
class Relay {
  port = 0;
  probes = 0;
  private server: Server | null = null;
  private mode: 'up' | 'refuse' | 'drop' = 'up';
  private readonly sockets = new Set<Socket>();
  constructor(private readonly target: () => number) {}

  async start(): Promise<void> {
    this.mode = 'up';
    if (this.server) return;
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(mode: 'refuse' | 'drop'): Promise<void> {
    this.mode = mode;
    if (mode === 'refuse' && this.server) {
      const server = this.server;
      this.server = null;
      await new Promise((resolve) => server.close(resolve).unref());
    }
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server) await new Promise((resolve) => this.server!.close(resolve));
  }

  private accept(client: Socket): void {
    if (this.mode !== 'up') {
      this.probes++;
      client.destroy();
      return;
    }
    const upstream = connect(this.target(), '127.0.0.1');
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    this.sockets.add(client);
    this.sockets.add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (this.mode !== 'up' && chunk.subarray(0, 10).toString('latin1').toUpperCase() === 'MAIL FROM:') return end();
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }
}

let t: TestApp;
let relay: Relay;
let headers: Record<string, string>;
before(async () => {
  relay = new Relay(() => Number(new URL(t.smtp.url).port));
  await relay.start();
  t = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${relay.port}/?tls=off` });
  ({ headers } = await t.adminWithSession());
});
after(async () => {
  await t.close();
  await relay.close();
});

/** A worker that loops as in production, logging into `lines`, with the timers shortened. */
function loopingWorker(ctx: AppContext, lines: string[], options: WorkerOptions = {}) {
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  return startWorker(
    { ...ctx, log },
    { loop: true, pollMs: 20, turnMs: 200, retryDelaySeconds: 0, relayRetryMs: 20, relayRetryMaxMs: 200, reclaimOnStart: false, ...options },
  );
}

const stats = async (id: number) => (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}/stats`, headers })).json();
const status = async (id: number) => (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}`, headers })).json().message_metadata.status;

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function campaignFor(members: number) {
  const { list, members: people } = await listWithMembers(t.db, members);
  const campaign = await sendableCampaign(t.db, [list.id]);
  await parkOtherCampaigns(t.db, campaign.id);
  assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers })).statusCode, 200);
  return { campaign, emails: people.map((p) => p.email).sort() };
}

/** Everyone got exactly one mail, every delivery sent at its first attempt, the campaign sent, nothing waiting. */
async function assertDeliveredOnce(campaignId: number, emails: string[]) {
  assert.deepEqual(recipientsOf(t.smtp, campaignId), emails);
  const rows = await deliveryRows(t.db, campaignId);
  assert.deepEqual(
    rows.map((r) => [r.status, r.attempts]),
    rows.map(() => ['sent', 1]),
  );
  assert.equal(await status(campaignId), 'sent');
  assert.equal((await stats(campaignId)).sender.relay_unavailable, null);
}

describe('a relay outage mid-send (issue 23)', () => {
  test('relay down for "30 s" (connection refused): the campaign waits, shows it, and finishes by itself', async () => {
    const { campaign, emails } = await campaignFor(40);
    const lines: string[] = [];
    // One attempt per delivery and a pause after 3 failures: an outage that spent either would show.
    const worker = loopingWorker(t.ctx, lines, { rate: 20, batchSize: 5, maxAttempts: 1, failurePause: 3 });
    try {
      await until('10 mails before the outage', () => recipientsOf(t.smtp, campaign.id).length >= 10);
      await relay.stop('refuse');
      const stalled = recipientsOf(t.smtp, campaign.id).length;
      let shown: { reason: string; since: string; retry_at: string } | null = null;
      // The session cut at its next MAIL FROM may come first ("closed the connection"); then the new ones are refused.
      const refused = new RegExp(`^Could not connect to 127\\.0\\.0\\.1:${relay.port}: connect ECONNREFUSED`);
      await until('the campaign to show it waits for the relay', async () => {
        shown = (await stats(campaign.id)).sender.relay_unavailable;
        return shown !== null && refused.test(shown.reason);
      });
      assert.ok(Date.parse(shown!.retry_at) >= Date.parse(shown!.since));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await status(campaign.id), 'inprocess');
      assert.equal(recipientsOf(t.smtp, campaign.id).length, stalled);
      assert.ok(stalled < 40, 'the outage came mid-send');
      const waiting = await deliveryRows(t.db, campaign.id);
      // Sent, or waiting (queued, or claimed by a probe) with no attempt spent.
      assert.deepEqual(
        waiting.filter((r) => r.status !== 'sent' && r.attempts > 0),
        [],
      );

      await relay.start();
      await until('every mail', async () => (await status(campaign.id)) === 'sent');
    } finally {
      await relay.start();
      await worker.stop();
    }
    await assertDeliveredOnce(campaign.id, emails);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string });
    assert.ok(
      logged.some((l) =>
        new RegExp(`^relay unavailable: Could not connect to 127\\.0\\.0\\.1:${relay.port}: connect ECONNREFUSED .*; sending waits`).test(l.msg),
      ),
      lines.join('\n'),
    );
    assert.ok(logged.some((l) => l.msg === 'relay answers again: sending resumed'));
    assert.ok(!logged.some((l) => /suspended/.test(l.msg)));
  });

  test('relay down for "20 minutes" (dozens of tries, the wait capped): no attempt spent, no suspension', async () => {
    const { campaign, emails } = await campaignFor(30);
    const lines: string[] = [];
    const worker = loopingWorker(t.ctx, lines, { rate: 20, batchSize: 5, maxAttempts: 1, failurePause: 3, relayRetryMs: 10, relayRetryMaxMs: 80 });
    try {
      await until('5 mails before the outage', () => recipientsOf(t.smtp, campaign.id).length >= 5);
      // The relay accepts connections and closes them at once: each try is counted.
      await relay.stop('drop');
      await until('30 tries of the relay', () => relay.probes >= 30);
      assert.equal(await status(campaign.id), 'inprocess');
      const shown = (await stats(campaign.id)).sender.relay_unavailable;
      assert.match(shown.reason, /^The server closed the connection\.$|^No answer|greeting|closed/);
      // Capped: the waits stopped growing at SEND_RELAY_RETRY_MAX_MS.
      assert.ok(Date.parse(shown.retry_at) - Date.now() <= 80 + 50);
      await relay.start();
      await until('every mail', async () => (await status(campaign.id)) === 'sent');
    } finally {
      await relay.start();
      await worker.stop();
    }
    await assertDeliveredOnce(campaign.id, emails);
  });
});

describe('the log line says what the relay did (issue 23)', () => {
  async function refusedWith(url: string, tls?: { ca?: Buffer }) {
    const { campaign } = await campaignFor(1);
    const lines: string[] = [];
    const transport = createTransport({ smtpUrl: url, dataDir: '/nonexistent' }, { tls });
    const worker = loopingWorker({ ...t.ctx, transport }, lines, { relayRetryMs: 60_000, relayRetryMaxMs: 60_000 });
    try {
      await until('the relay to be found unusable', () => lines.some((l) => l.includes('relay unavailable')));
    } finally {
      await worker.stop();
      await transport.close();
    }
    const rows = await deliveryRows(t.db, campaign.id);
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts]),
      [['queued', 0]],
    );
    await t.inject({ method: 'PATCH', url: `/api/v2/campaigns/${campaign.id}/status`, headers, payload: { status: 'suspended' } });
    const line = lines.map((l) => JSON.parse(l) as { msg: string }).find((l) => l.msg.startsWith('relay unavailable'))!;
    assert.doesNotMatch(line.msg, /no reply code/);
    return line.msg;
  }

  test('no STARTTLS offered, certificate refused and why, login refused', async () => {
    const plain = await startServer();
    assert.match(
      await refusedWith(`smtp://127.0.0.1:${plain.port}/?tls=required`),
      /^relay unavailable: The server offers no STARTTLS, and the SMTP URL says \?tls=required: nothing is sent in clear\.; sending waits/,
    );
    const tls = await startServer({ key, cert });
    assert.match(await refusedWith(`smtp://127.0.0.1:${tls.port}/`), /^relay unavailable: STARTTLS failed: self-signed certificate; sending waits/);
    const login = await startServer({
      disabledCommands: ['STARTTLS'],
      authOptional: false,
      allowInsecureAuth: true,
      onAuth: (_auth, _session, callback) => callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 })),
    });
    assert.match(
      await refusedWith(`smtp://u:wrong@127.0.0.1:${login.port}/?tls=off`),
      /^relay unavailable: The login was refused: 535 Invalid username or password; sending waits/,
    );
  });
});
