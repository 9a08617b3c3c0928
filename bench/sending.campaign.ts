import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import type { JobContext, JobFigures } from './scenario.js';
import { ATTACHMENT_BYTES, ATTACHMENT_NAME, FOOTER, FROM, SUBJECT, TEMPLATE, newsletterBody, type SendFixture } from './sending.seeds.js';
import { cpuSeconds, deadline, memoryMegabytes, quiet, startWorkerProcess, type WorkerProcess } from './sending.processes.js';
import { startSinkProcess, type SinkReport } from './smtp-sink.js';

/*
 * A campaign sent the way production sends it: made and submitted through the API of the service bench/run.ts
 * started (SEND_WORKER=off, so it sends nothing itself), then sent by `node dist/worker.js` processes into the sink
 * process. The figures come from the sink (rate, duplicates, who got nothing) and, once the campaign is `sent`, from
 * the delivery ledger.
 */

/** SMTP connections per sender (the URL's `?pool=`): the service's default, and what the bare senders get too. */
export const SMTP_POOL = 5;

type Call = (method: string, path: string, body?: unknown) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function api(baseUrl: string, sessionKey: string): Call {
  return async (method, path, body) => {
    const form = body instanceof FormData;
    const res = await fetch(`${baseUrl}/api/v2${path}`, {
      method,
      headers: {
        'php-auth-pw': sessionKey,
        accept: 'application/json',
        ...(body !== undefined && !form ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
}

/** A template, a campaign in it on one list, its attachment: four requests. Answers the campaign id. */
async function createCampaign(call: Call, listId: number, label: string): Promise<number> {
  const template = await call('POST', '/templates', { title: `Bench newsletter (${label})`, content: TEMPLATE });
  const campaign = await call('POST', '/campaigns', {
    template_id: template.id,
    content: { subject: SUBJECT, text: newsletterBody(), footer: FOOTER },
    format: { send_format: 'html' },
    options: { from_field: FROM },
  });
  await call('POST', `/list-messages/message/${campaign.id}/list/${listId}`);
  const form = new FormData();
  form.append('file', new Blob([randomBytes(ATTACHMENT_BYTES)], { type: 'application/pdf' }), ATTACHMENT_NAME);
  await call('POST', `/campaigns/${campaign.id}/attachments`, form);
  return campaign.id as number;
}

async function campaignStatus(call: Call, campaignId: number): Promise<string> {
  return (await call('GET', `/campaigns/${campaignId}`)).message_metadata.status as string;
}

/** Polls until the campaign is `sent`; fails when it is suspended, no worker is left running, or at `endAt`. */
async function untilSent(call: Call, campaignId: number, workers: readonly WorkerProcess[], endAt: number): Promise<void> {
  for (;;) {
    const status = await campaignStatus(call, campaignId);
    if (status === 'sent') return;
    if (status === 'suspended') throw new Error(`campaign ${campaignId} was suspended by the sender`);
    if (!workers.some((w) => w.isRunning())) throw new Error(`every worker exited while the campaign was ${status}`);
    if (Date.now() > endAt) throw new Error(`campaign still ${status} at the bench's time limit`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface CampaignRun {
  /** Names the template and says which list. */
  readonly label: string;
  readonly listId: number;
  readonly recipients: number;
  readonly workers: number;
  /** Sink counts at which the first worker's VmRSS is sampled. */
  readonly rssAt?: readonly number[];
  /** kill -9 the (only) worker when the sink has this share of the recipients, then start another. */
  readonly killAt?: number;
  /** Worker environment on top of the service's. */
  readonly env?: Record<string, string>;
}

export async function runCampaign(fixture: SendFixture, context: JobContext, run: CampaignRun): Promise<JobFigures> {
  const databaseUrl = context.serviceEnv.DATABASE_URL;
  // Said on the job's line rather than thrown, which would only say that the driver failed.
  if (!databaseUrl) return { skipped: 'needs PostgreSQL: worker processes cannot share PGlite with the service' };
  const call = api(context.baseUrl, fixture.sessionKey);
  const loadBefore = loadavg()[0]!;
  const sink = await startSinkProcess(SMTP_POOL);
  const workers: WorkerProcess[] = [];
  let campaignId: number | null = null;
  let sent = false;
  try {
    campaignId = await createCampaign(call, run.listId, run.label);
    const env = { ...process.env, ...context.serviceEnv, SMTP_URL: sink.url, ...run.env };
    const submitted = await call('POST', `/campaigns/${campaignId}/send`);
    if (submitted.message_metadata.status !== 'submitted') throw new Error(`send answered status ${submitted.message_metadata.status}`);
    // Bounded: a sender ten times slower than listmonk's published rate still finishes inside it.
    const endAt = Date.now() + Math.max(300_000, run.recipients * 12);

    const rss: JobFigures = {};
    const milestones = (run.rssAt ?? []).map((n) =>
      quiet(
        sink.when(n).then(() => {
          const mb = memoryMegabytes(workers[0]!.pid, 'VmRSS');
          if (mb !== null) rss[`worker_rss_mb_at_${n}`] = mb;
        }),
      ),
    );
    for (let i = 0; i < run.workers; i++) workers.push(startWorkerProcess(env));
    // The worker's CPU while it sends, apart from its start, compiling and freezing the audience: read when the sink
    // has the first tenth of the mail and again at the end.
    const spanFrom = Math.max(1, Math.round(run.recipients / 10));
    let cpuAtSpanStart: { cpu: number; messages: number } | null = null;
    quiet(sink.when(spanFrom)).then(
      async () => {
        const cpu = cpuSeconds(workers[0]!.pid);
        if (cpu !== null) cpuAtSpanStart = { cpu, messages: await sink.count() };
      },
      () => {},
    );

    const kill: JobFigures = {};
    let killedCpu = 0;
    let resumed: Promise<void> = Promise.resolve();
    if (run.killAt !== undefined) {
      // Half a default batch (SEND_BATCH_SIZE 200) past the mark, so the kill tends to land mid-batch.
      const at = Math.round(run.recipients * run.killAt) + 100;
      await Promise.race([quiet(sink.when(at)), deadline(endAt - Date.now(), `the sink never got ${at} messages`)]);
      // Its CPU time so far, read while it is there to read.
      killedCpu = cpuSeconds(workers[0]!.pid) ?? 0;
      await workers[0]!.kill9();
      kill.received_at_kill = await sink.count();
      // Rows the dead worker held: mails it may have handed over without recording, the most a restart can repeat.
      const killedAt = Date.now();
      const held = await withDatabase(databaseUrl, async (db) =>
        (await db.query<{ id: string }>(`select id from deliveries where campaign_id = $1 and status = 'sending'`, [campaignId])).rows.map(
          (r) => r.id,
        ),
      );
      kill.in_flight_at_kill = held.length;
      workers.push(startWorkerProcess(env));
      // Seconds from the kill until every row the dead worker held has its outcome: how long the campaign waited.
      resumed = untilSettled(databaseUrl, held, endAt).then((at) => {
        kill.held_rows_settled_s_after_kill = Math.round((at - killedAt) / 100) / 10;
      });
    }

    await untilSent(call, campaignId, workers, endAt);
    await resumed;
    sent = true;
    // Reached by now unless messages are missing, which the figures below say anyway.
    await Promise.race([Promise.all(milestones), new Promise((r) => setTimeout(r, 2000))]);
    const report = await sink.report();
    const peaks = workers.map((w) => memoryMegabytes(w.pid, 'VmHWM'));
    const cpu = workers.map((w) => cpuSeconds(w.pid) ?? 0).reduce((a, b) => a + b, killedCpu);
    const exits = await Promise.all(workers.map((w) => w.stop()));
    const seconds = report.spanMs / 1000;

    const figures: JobFigures = {
      recipients: run.recipients,
      workers: workers.length,
      messages: report.messages,
      seconds: Math.round(seconds * 100) / 100,
      messages_per_s: Math.round(report.messages / seconds),
      avg_message_kb: Math.round(report.bytes / report.messages / 102.4) / 10,
      longest_gap_ms: Math.round(report.longestGapMs),
      stalled_ms: Math.round(report.stalledMs),
      worker_cpu_s: Math.round(cpu * 10) / 10,
      messages_per_worker_cpu_s: Math.round(report.messages / cpu),
      // Main thread and the thread pool's signing together (/proc counts every thread of the process).
      worker_cpu_us_per_message: Math.round((cpu * 1e6) / report.messages),
      ...sendingCpu(cpuAtSpanStart, workers.length === 1 ? cpu : null, report.messages),
      sink_cpu_s: cpuSeconds(sink.pid) ?? 'unknown',
      ...rss,
      ...kill,
      ...(await ledgerCheck(databaseUrl, campaignId, report)),
      campaign_status: await campaignStatus(call, campaignId),
      worker_peak_rss_mb: Math.max(...peaks.map((p) => p ?? 0)),
      worker_exit_codes: exits.map((c) => String(c)).join(','),
      load_average_before: Math.round(loadBefore * 100) / 100,
      load_average_after: Math.round(loadavg()[0]! * 100) / 100,
    };
    if (typeof kill.in_flight_at_kill === 'number') {
      figures.duplicates_within_in_flight = (figures.duplicate_deliveries as number) <= kill.in_flight_at_kill ? 'yes' : 'no';
    }
    const at = (run.rssAt ?? []).map((n) => rss[`worker_rss_mb_at_${n}`]);
    if (at.length === 2 && typeof at[0] === 'number' && typeof at[1] === 'number') {
      figures.worker_rss_growth_mb = Math.round((at[1] - at[0]) * 10) / 10;
    }
    return figures;
  } finally {
    await Promise.all(workers.map((w) => w.stop(5000)));
    await sink.stop();
    // A campaign left half sent would be picked up by the next job's workers.
    if (campaignId !== null && !sent) await call('PATCH', `/campaigns/${campaignId}/status`, { status: 'suspended' }).catch(() => {});
  }
}

/** CPU µs a message over the sending span (the last nine tenths), for a single worker that ran throughout. */
function sendingCpu(start: { cpu: number; messages: number } | null, end: number | null, messages: number): JobFigures {
  if (!start || end === null || messages <= start.messages) return {};
  return { worker_cpu_us_per_message_sending: Math.round(((end - start.cpu) * 1e6) / (messages - start.messages)) };
}

/** Polls until none of `ids` is queued or in flight; answers when (epoch ms). */
async function untilSettled(url: string, ids: readonly string[], endAt: number): Promise<number> {
  return withDatabase(url, async (db) => {
    for (;;) {
      const open = await db.query(`select 1 from deliveries where id = any($1::bigint[]) and status in ('queued', 'sending') limit 1`, [ids]);
      if (open.rows.length === 0) return Date.now();
      if (Date.now() > endAt) throw new Error("the dead worker's rows were never settled");
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}

export async function withDatabase<T>(url: string, work: (db: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The sink's counts held against the delivery ledger: who was due, who got it, who got it twice. */
async function ledgerCheck(url: string, campaignId: number, report: SinkReport): Promise<JobFigures> {
  return withDatabase(url, async (db) => {
    const statuses = await db.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from deliveries where campaign_id = $1 group by status`,
      [campaignId],
    );
    const rows = await db.query<{ id: string; email: string; status: string }>(
      `select d.id, s.email, d.status from deliveries d join subscribers s on s.id = d.subscriber_id where d.campaign_id = $1`,
      [campaignId],
    );
    const counters = await db.query<{ sent: number }>(`select sent::int as sent from campaign_counters where campaign_id = $1`, [campaignId]);
    const due = new Set(rows.rows.map((r) => r.email));
    const missing = rows.rows.filter((r) => !report.recipients.has(r.email)).length;
    const sentUnseen = rows.rows.filter((r) => r.status === 'sent' && !report.deliveries.has(Number(r.id))).length;
    let duplicateMessages = 0;
    let foreign = 0;
    for (const [address, n] of report.recipients) {
      duplicateMessages += n - 1;
      if (!due.has(address)) foreign += n;
    }
    let duplicateDeliveries = 0;
    for (const n of report.deliveries.values()) duplicateDeliveries += n - 1;
    const byStatus = Object.fromEntries(statuses.rows.map((r) => [r.status, r.n]));
    return {
      deliveries: rows.rows.length,
      duplicate_messages: duplicateMessages,
      duplicate_deliveries: duplicateDeliveries,
      missing_recipients: missing,
      foreign_messages: foreign,
      without_delivery_header: report.withoutDelivery,
      dkim_signed_messages: report.signed,
      ledger_sent: byStatus.sent ?? 0,
      ledger_not_sent: rows.rows.length - (byStatus.sent ?? 0),
      ledger_sent_not_received: sentUnseen,
      counter_sent: counters.rows[0]?.sent ?? 0,
    };
  });
}
