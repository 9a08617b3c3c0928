import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { randomBetween, scenario, withSession, type JobContext, type Scenario } from './scenario.js';
import type { Seed } from './seeds.js';
import { startWorkerProcess } from './sending.processes.js';
import { campaignStatsMillion } from './tracking.seeds.js';

/*
 * Issue 15's figures, on PostgreSQL: 1,000,000 subscribers with 5 attributes, 10 lists, 1,000,000 deliveries and
 * 2,000,000 open/click events (the tracking seed, plus attributes, lists and first-open times here).
 *   segment-count        POST /segments/count of 3 conditions (an attribute, a list, opened within 90 days)
 *   segment-count-saved  GET /segments/{id}/count of the same, saved
 *   segment-page         GET /segments/{id}/subscribers at random depths
 *   segment-freeze       a campaign to a segment of about 500,000: records frozen per second by one worker
 */

/**
 * Connections of the count and page scenarios unless BENCH_CONNECTIONS says otherwise: on 2 cores, 50 concurrent
 * counts over a million subscribers only queue into autocannon's time-outs, and the figures are then none at all.
 */
const SEGMENT_CONNECTIONS = 2;

interface SegmentFixture {
  sessionKey: string;
  definition: unknown;
  segmentId: number;
  freezeSegmentId: number;
  firstId: number;
  lastId: number;
}

const attribute = async (db: Parameters<Seed<unknown>['run']>[0], name: string, type: string, options: string[] = []) => {
  const [row] = await queryRows<{ id: number }>(db, sql`insert into attribute_definitions (name, type) values (${name}, ${type}) returning id`);
  const ids: number[] = [];
  for (const [i, option] of options.entries()) {
    const [o] = await queryRows<{ id: number }>(
      db,
      sql`insert into attribute_options (definition_id, name, list_order) values (${row!.id}, ${option}, ${i}) returning id`,
    );
    ids.push(o!.id);
  }
  return { id: row!.id, options: ids };
};

export const segmentsMillion: Seed<SegmentFixture> = {
  name: 'segments-1m',
  async run(db, use) {
    const { sessionKey, campaignId } = await use(campaignStatsMillion);
    const [range] = await queryRows<{ first: number; last: number }>(
      db,
      sql`select min(subscriber_id)::int as first, max(subscriber_id)::int as last from deliveries where campaign_id = ${campaignId}`,
    );
    const { first, last } = range!;
    const country = await attribute(db, 'Country', 'select', ['Germany', 'France', 'Spain', 'Italy', 'Poland']);
    const city = await attribute(db, 'City', 'textline');
    const birthday = await attribute(db, 'Birthday', 'date');
    const newsletter = await attribute(db, 'Newsletter', 'checkbox');
    const topics = await attribute(db, 'Topics', 'checkboxgroup', ['News', 'Sport', 'Music', 'Travel']);
    const everyone = sql`from generate_series(${first}::int, ${last}::int) as n`;
    await db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value)
      select n, ${country.id}, (${sql.param(country.options)}::int[])[1 + n % 5]::text ${everyone}`);
    await db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value)
      select n, ${city.id}, 'City ' || (n % 1000) ${everyone}`);
    await db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value)
      select n, ${birthday.id}, to_char(date '1950-01-01' + (n % 20000), 'YYYY-MM-DD') ${everyone}`);
    // 55 % have the newsletter box ticked: with 90 % confirmed, a segment of about 500,000 to freeze.
    await db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value)
      select n, ${newsletter.id}, case when n % 20 < 11 then '1' else '0' end ${everyone}`);
    await db.execute(sql`insert into subscriber_attribute_values (subscriber_id, definition_id, value)
      select n, ${topics.id}, (${sql.param(topics.options.map(String))}::text[])[1 + n % 4] || ',' || (${sql.param(topics.options.map(String))}::text[])[1 + (n / 4) % 4] ${everyone}`);
    // Nine more lists of 100,000 members each (the tenth is the million-member list of the seed).
    const listIds: number[] = [];
    for (let k = 0; k < 9; k++) {
      const [list] = await queryRows<{ id: number }>(db, sql`insert into lists (name) values (${`Bench segment list ${k}`}) returning id`);
      listIds.push(list!.id);
      await db.execute(sql`insert into subscriptions (list_id, subscriber_id) select ${list!.id}, n ${everyone} where n % 10 = ${k}`);
    }
    // The deliveries' first opens and clicks, as the tracking flush keeps them. With the row triggers off for these
    // two statements (bench superuser; `set local`, so for this transaction only), and subscriber_engagement, which
    // the triggers would have kept one row at a time, filled after them in one statement: minutes less of setup.
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`
      update deliveries d set first_opened_at = o.first_open, first_human_opened_at = o.first_human
      from (select subscriber_id, min(opened_at) as first_open, min(opened_at) filter (where not machine) as first_human
            from opens where campaign_id = ${campaignId} group by subscriber_id) o
      where d.campaign_id = ${campaignId} and d.subscriber_id = o.subscriber_id`);
      await tx.execute(sql`
      update deliveries d set first_clicked_at = k.first_click
      from (select subscriber_id, min(clicked_at) as first_click from clicks where campaign_id = ${campaignId} group by subscriber_id) k
      where d.campaign_id = ${campaignId} and d.subscriber_id = k.subscriber_id`);
      await tx.execute(sql`set local session_replication_role = origin`);
      await tx.execute(sql`
      insert into subscriber_engagement as e (subscriber_id, last_sent_at, last_opened_at, last_clicked_at)
      select subscriber_id, max(sent_at), max(first_human_opened_at), max(first_clicked_at) from deliveries
      where sent_at is not null or first_human_opened_at is not null or first_clicked_at is not null
      group by subscriber_id
      on conflict (subscriber_id) do update
        set last_sent_at = excluded.last_sent_at, last_opened_at = excluded.last_opened_at, last_clicked_at = excluded.last_clicked_at`);
    });
    await db.execute(sql`vacuum (analyze) subscriber_attribute_values, subscriptions, deliveries, subscribers, subscriber_engagement`);

    const definition = {
      match: 'all',
      conditions: [
        { type: 'attribute', attribute_id: country.id, op: 'any_of', value: ['Germany'] },
        // Germany is n % 5 = 0 and list 0 is n % 10 = 0: 100,000 on both, about 70,000 of them opened.
        { type: 'list', op: 'member_of', list_ids: [listIds[0]] },
        { type: 'engagement', action: 'opened', within_last_days: 90 },
      ],
    };
    const [saved] = await queryRows<{ id: number }>(
      db,
      sql`insert into segments (name, definition) values ('Bench three conditions', ${JSON.stringify(definition)}::jsonb) returning id`,
    );
    const freezeDefinition = { match: 'all', conditions: [{ type: 'attribute', attribute_id: newsletter.id, op: 'is_set' }] };
    const [freeze] = await queryRows<{ id: number }>(
      db,
      sql`insert into segments (name, definition) values ('Bench newsletter', ${JSON.stringify(freezeDefinition)}::jsonb) returning id`,
    );
    return { sessionKey, definition, segmentId: saved!.id, freezeSegmentId: freeze!.id, firstId: first, lastId: last };
  },
};

async function api<T>(context: JobContext, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${context.baseUrl}${path}`, {
    method,
    headers: { ...withSession(context.sessionKey), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** One worker process freezes a campaign to the 500,000-ish segment; timed from the send until it is `inprocess`. */
async function freezeJob(fixture: SegmentFixture, context: JobContext) {
  const { count } = await api<{ count: number }>(context, 'GET', `/api/v2/segments/${fixture.freezeSegmentId}/count`);
  const campaign = await api<{ id: number }>(context, 'POST', '/api/v2/campaigns', {
    content: { subject: 'Bench segment', text: 'Hello [EMAIL]' },
    format: { send_format: 'text' },
    options: { from_field: 'bench@mailroom.invalid', user_selection: `segment:${fixture.freezeSegmentId}` },
  });
  // The worker's mail goes to a port nothing listens on: only the freeze is measured, and the worker stops after it.
  const worker = startWorkerProcess({ ...process.env, ...context.serviceEnv, SMTP_URL: 'smtp://127.0.0.1:9' });
  try {
    const started = performance.now();
    await api(context, 'POST', `/api/v2/campaigns/${campaign.id}/send`);
    let status = '';
    while (status !== 'inprocess' && status !== 'sent' && status !== 'suspended') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await api<{ message_metadata: { status: string } }>(context, 'GET', `/api/v2/campaigns/${campaign.id}`)).message_metadata.status;
      if (performance.now() - started > 600_000) throw new Error('the freeze took longer than 10 minutes');
    }
    const seconds = (performance.now() - started) / 1000;
    const stats = await api<{ deliveries: Record<string, number> }>(context, 'GET', `/api/v2/campaigns/${campaign.id}/stats`);
    const frozen = Object.values(stats.deliveries).reduce((a, b) => a + b, 0);
    return {
      segment_matches: count,
      records_frozen: frozen,
      freeze_seconds: Math.round(seconds * 100) / 100,
      records_per_s: Math.round(frozen / seconds),
      campaign_status_after: status,
    };
  } finally {
    await worker.stop(5_000);
  }
}

export const segmentScenarios: readonly Scenario[] = [
  scenario<SegmentFixture>({
    name: 'segment-count',
    connections: SEGMENT_CONNECTIONS,
    seed: segmentsMillion,
    requests: ({ sessionKey, definition }) => [
      {
        method: 'POST',
        path: '/api/v2/segments/count',
        headers: { ...withSession(sessionKey), 'content-type': 'application/json' },
        body: JSON.stringify({ definition }),
      },
    ],
  }),
  scenario<SegmentFixture>({
    name: 'segment-count-saved',
    connections: SEGMENT_CONNECTIONS,
    seed: segmentsMillion,
    requests: ({ sessionKey, segmentId }) => [{ method: 'GET', path: `/api/v2/segments/${segmentId}/count`, headers: withSession(sessionKey) }],
  }),
  scenario<SegmentFixture>({
    name: 'segment-page',
    connections: SEGMENT_CONNECTIONS,
    seed: segmentsMillion,
    requests: ({ sessionKey, segmentId, firstId, lastId }) => [
      {
        method: 'GET',
        path: `/api/v2/segments/${segmentId}/subscribers?after_id=${firstId}`,
        headers: withSession(sessionKey),
        setupRequest: (request) => ({
          ...request,
          path: `/api/v2/segments/${segmentId}/subscribers?after_id=${randomBetween(firstId, lastId - 50_000)}`,
        }),
      },
    ],
  }),
  scenario<SegmentFixture>({ name: 'segment-freeze', seed: segmentsMillion, rate: 'records_per_s', job: freezeJob }),
];
