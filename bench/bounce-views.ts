import pg from 'pg';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, queryRows } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { superUserSession } from './seeds.js';

/*
 * `npx tsx bench/bounce-views.ts`: the API calls of the console's bounce and bounce-rule views on a database of
 * 1,000,000 bounces (100,000 subscribers, 100 campaigns, three statuses). One JSON line per call: the median of 5
 * timed requests after one untimed one, through app.inject (no browser: these views make one call each).
 * PostgreSQL only (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; the database
 * mailroom_bounce_bench is dropped and created).
 */

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NAME = 'mailroom_bounce_bench';
const url = new URL(serverUrl);
url.pathname = `/${NAME}`;
const BOUNCES = 1_000_000;

const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`drop database if exists ${NAME} with (force)`);
await admin.query(`create database ${NAME}`);
await admin.end();

const database = await createDatabase({ databaseUrl: url.toString(), poolSize: 4 });
await migrate(database);
const started = Date.now();
const { sessionKey } = await superUserSession.run(database.db, async () => {
  throw new Error('no nested seeds');
});
await database.db.execute(sql`
  insert into subscribers (email, unique_id, confirmed)
  select 'bounce-sub-' || n || '@mailroom.invalid', md5('bounce-sub-' || n), true from generate_series(1, 100000) as n`);
await database.db.execute(
  sql`insert into campaigns (unique_id, subject) select md5('bench-campaign-' || n), 'Campaign ' || n from generate_series(1, 100) as n`,
);
const [range] = await queryRows<{ s: number; c: number }>(
  database.db,
  sql`select min(s.id)::int as s, (select min(id)::int from campaigns) as c from subscribers s`,
);
await database.db.execute(sql`
  insert into bounces (received_at, status, comment, header, data, campaign_id, subscriber_id)
  select now() - (n || ' seconds')::interval,
         (array['bounced list message', 'bounced system message', 'unidentified'])[1 + n % 3],
         'user unknown', 'From: MAILER-DAEMON@mx.example.net', repeat('550 5.1.1 User unknown. ', 4),
         ${range!.c} + n % 100, ${range!.s} + n % 100000
  from generate_series(1, ${BOUNCES}) as n`);
await database.db.execute(sql`analyze`);
const [last] = await queryRows<{ id: number }>(database.db, sql`select max(id)::int as id from bounces`);
console.error(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
await database.close();

const config = loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', SEND_WORKER: 'off', DATA_DIR: '/tmp/mailroom-bounce-bench' });
const app = await buildApp({ config });
await app.ready();
const headers = { 'php-auth-pw': sessionKey };
const calls: { name: string; method: 'GET' | 'POST'; url: string; payload?: object }[] = [
  { name: 'bounces-first', method: 'GET', url: '/api/v2/bounces?limit=50' },
  { name: 'bounces-deep', method: 'GET', url: `/api/v2/bounces?limit=50&after_id=${last!.id - 100}` },
  { name: 'bounces-status', method: 'GET', url: '/api/v2/bounces?limit=50&status=unidentified' },
  { name: 'bounces-subscriber', method: 'GET', url: `/api/v2/bounces?limit=50&subscriber_id=${range!.s + 42}` },
  { name: 'bounce-raw', method: 'GET', url: `/api/v2/bounces/${last!.id - 5000}` },
  { name: 'bounce-rules', method: 'GET', url: '/api/v2/bounces/regex' },
  {
    name: 'bounce-rule-test-64k',
    method: 'POST',
    url: '/api/v2/bounces/regex/test',
    payload: { regex: '/(a|a)+$/', text: `${'a'.repeat(65_000)}!` },
  },
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const call of calls) {
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    const res = await app.inject({ method: call.method, url: call.url, headers, ...(call.payload ? { payload: call.payload } : {}) });
    if (res.statusCode !== 200) throw new Error(`${call.name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    if (i > 0) times.push(performance.now() - t0);
  }
  console.log(JSON.stringify({ call: call.name, database: 'postgres', bounces: BOUNCES, ms: Math.round(median(times)) }));
}
await app.close();
