import { createHash, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { campaigns } from '../src/db/schema/index.js';
import { scenario, type JobFigures, type Scenario } from './scenario.js';
import type { Seed } from './seeds.js';

/*
 * Bounce processing (issue 6's scale: 10,000 bounce messages at 500 a second or more): 10,000 deliveries of one
 * sent campaign, each bounced once through POST /api/v2/bounces/inbound by a few concurrent senders, the way
 * several MTA pipes or a relay's webhook deliver them. The mix: 85 % soft bounces (counted, thresholds looked at),
 * 10 % hard bounces (blacklisted), 5 % abuse reports (blacklisted, not counted). The messages are built before the
 * clock starts.
 */

/** The service reads BOUNCE_INBOUND_TOKEN from the environment bench/run.ts gives it, which is this process's. */
process.env.BOUNCE_INBOUND_TOKEN ||= 'bench-bounce-token-0123456789';

const MESSAGES = Number(process.env.BENCH_BOUNCES ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_BOUNCE_CONCURRENCY ?? 16);

/** Small on purpose: the fixture crosses to the driver process on its command line. */
interface BounceFixture {
  campaignId: number;
  /** Delivery `firstDeliveryId + n - 1` went to subscriber n: `bounced-<n>@bench.invalid`, unique id md5('bench-bounce-<n>'). */
  firstDeliveryId: number;
  count: number;
}

type Delivery = [deliveryId: number, uid: string, email: string];

function deliveryOf(fixture: BounceFixture, n: number): Delivery {
  return [fixture.firstDeliveryId + n - 1, createHash('md5').update(`bench-bounce-${n}`).digest('hex'), `bounced-${n}@bench.invalid`];
}

/** A campaign sent to MESSAGES subscribers: set-based SQL, then a check that ids line up as the fixture says. */
export const bouncedDeliveries: Seed<BounceFixture> = {
  name: 'bounces-10k-deliveries',
  async run(db) {
    const [campaign] = await db
      .insert(campaigns)
      .values({ uniqueId: randomBytes(18).toString('hex'), subject: 'Bench bounces', status: 'sent', sentAt: new Date() })
      .returning({ id: campaigns.id });
    const campaignId = campaign!.id;
    await db.execute(sql`
      insert into subscribers (email, unique_id, confirmed)
      select 'bounced-' || n || '@bench.invalid', md5('bench-bounce-' || n), true from generate_series(1, ${MESSAGES}) as n`);
    await db.execute(sql`
      insert into deliveries (campaign_id, subscriber_id, status, sent_at, message_id)
      select ${campaignId}, s.id, 'sent', now(), '<c' || ${campaignId} || '.s' || s.id || '.bench@bench.invalid>'
      from subscribers s
      where s.email like 'bounced-%@bench.invalid'
      order by substring(s.email from 9 for position('@' in s.email) - 9)::int`);
    const [check] = await queryRows<{ first: number; n: number; wrong: number }>(
      db,
      sql`select min(d.id)::int as first, count(*)::int as n,
                 count(*) filter (where s.email <> 'bounced-' || (d.id - m.first + 1) || '@bench.invalid')::int as wrong
          from deliveries d join subscribers s on s.id = d.subscriber_id
          cross join (select min(id) as first from deliveries where campaign_id = ${campaignId}) m
          where d.campaign_id = ${campaignId}`,
    );
    if (check!.n !== MESSAGES || check!.wrong !== 0) throw new Error('bench: the bounce seed did not line deliveries up with subscribers');
    return { campaignId, firstDeliveryId: check!.first, count: MESSAGES };
  },
};

const CRLF = '\r\n';

function returnedHeader(campaignId: number, [deliveryId, uid, email]: Delivery): string {
  return [
    'From: Bench <news@bench.invalid>',
    `To: ${email}`,
    'Subject: Bench news',
    `Message-ID: <c${campaignId}.bench.${deliveryId}@bench.invalid>`,
    `X-Mailroom-Campaign: ${campaignId}`,
    `X-Mailroom-Subscriber: ${uid}`,
    `X-Mailroom-Delivery: ${deliveryId}`,
  ].join(CRLF);
}

/** The n-th bench bounce: a DSN (soft or hard) or an abuse report, each with its own Message-ID. */
function bounceMessage(n: number, campaignId: number, delivery: Delivery): string {
  const boundary = `b${n}`;
  const email = delivery[2];
  if (n % 20 === 0) {
    return [
      'From: fbl@isp.bench.invalid',
      'Date: Tue, 3 Mar 2026 08:12:00 +0000',
      `Message-ID: <arf-${n}@isp.bench.invalid>`,
      `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain',
      '',
      'An abuse report.',
      `--${boundary}`,
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: abuse',
      'Version: 1',
      `Original-Rcpt-To: <${email}>`,
      `--${boundary}`,
      'Content-Type: text/rfc822-headers',
      '',
      returnedHeader(campaignId, delivery),
      `--${boundary}--`,
      '',
    ].join(CRLF);
  }
  const hard = n % 20 < 3;
  const status = hard ? '5.1.1' : '4.2.2';
  return [
    'From: MAILER-DAEMON@mx.bench.invalid',
    'Date: Mon, 2 Mar 2026 10:00:05 +0000',
    `Message-ID: <dsn-${n}@mx.bench.invalid>`,
    'Subject: Undelivered Mail Returned to Sender',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain',
    '',
    `<${email}>: host mx said: 5${hard ? '50' : '52'} ${status} ${hard ? 'user unknown' : 'mailbox full'}`,
    `--${boundary}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.bench.invalid',
    '',
    `Final-Recipient: rfc822; ${email}`,
    `Action: ${hard ? 'failed' : 'delayed'}`,
    `Status: ${status}`,
    `Diagnostic-Code: smtp; 5${hard ? '50' : '52'} ${status} ${hard ? 'user unknown' : 'mailbox full'}`,
    `--${boundary}`,
    'Content-Type: text/rfc822-headers',
    '',
    returnedHeader(campaignId, delivery),
    `--${boundary}--`,
    '',
  ].join(CRLF);
}

/** One POST over a kept-alive connection (node:http costs the driver less CPU than fetch, on a machine it shares). */
function post(agent: Agent, url: URL, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'message/rfc822', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function postBounces(fixture: BounceFixture, baseUrl: string): Promise<JobFigures> {
  const token = process.env.BOUNCE_INBOUND_TOKEN!;
  const url = new URL(`${baseUrl}/api/v2/bounces/inbound`);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const messages = Array.from({ length: fixture.count }, (_, i) => bounceMessage(i + 1, fixture.campaignId, deliveryOf(fixture, i + 1)));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let stored = 0;
  let next = 0;
  const started = performance.now();
  const sender = async () => {
    while (next < messages.length) {
      const body = messages[next++]!;
      const t0 = performance.now();
      const res = await post(agent, url, token, body);
      latencies.push(performance.now() - t0);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status === 202 && !(JSON.parse(res.text) as { duplicate?: boolean }).duplicate) stored++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, sender));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return {
    messages: messages.length,
    concurrency: CONCURRENCY,
    stored,
    non202: messages.length - (statuses['202'] ?? 0),
    seconds: Math.round(seconds * 100) / 100,
    messages_per_s: Math.round(messages.length / seconds),
    latency_p50_ms: at(0.5),
    latency_p99_ms: at(0.99),
  };
}

/** The bounce area's bench scenarios; gathered in bench/scenarios.ts. */
export const bounceScenarios: readonly Scenario[] = [
  scenario<BounceFixture>({
    name: 'bounces-10k',
    seed: bouncedDeliveries,
    job: (fixture, { baseUrl }) => postBounces(fixture, baseUrl),
    async verify(db, fixture) {
      const [row] = await queryRows<{ bounces: number; blacklisted: number; counter: number }>(
        db,
        sql`select (select count(*)::int from bounces where campaign_id = ${fixture.campaignId}) as bounces,
                   (select count(*)::int from subscribers where email like 'bounced-%@bench.invalid' and blacklisted) as blacklisted,
                   (select bounces::int from campaign_counters where campaign_id = ${fixture.campaignId}) as counter`,
      );
      return { bounces_stored: row!.bounces, subscribers_blacklisted: row!.blacklisted, campaign_counter_bounces: row!.counter };
    },
  }),
];
