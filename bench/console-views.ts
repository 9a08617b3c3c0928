import pg from 'pg';
import { eq, sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, queryRows } from '../src/db/client.js';
import { hashSecret, newSecret } from '../src/identity/tokens.js';
import type { Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { campaigns, sessions } from '../src/db/schema/index.js';
import { foldAll } from '../src/subscription/email-search.fold.js';
import { signedInBrowser } from './console-browser.js';
import { superUserSession, type Seed } from './seeds.js';
import { millionMembers } from './subscription.scenarios.js';

/*
 * `npm run bench:console`: every view of the admin console on a database of 1,000,000 subscribers (all in one list,
 * created over the last 90 days, every tenth one's address also on the blacklist), in Debian's Chromium against the built console. Per view, one JSON line: the time
 * from navigation until the view's content is on screen (`view_ms`) and the slowest of the page's API calls
 * (`api_max_ms`, from the browser's resource timing), each the median of 3 visits after one unmeasured visit.
 * The campaign views run against a sent campaign with 1,000,000 delivery records (1% failed, with counters, 48 hours
 * of opens and clicks, five links, daily sends and 3,100 bounce records as the sender, tracking and bounce processing
 * keep them) and a draft to the same list. BENCH_VIEWS (below) measures some views only.
 * PostgreSQL only (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; the database
 * BENCH_DB_NAME, default mailroom_console_bench, is dropped and created).
 */

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NAME = process.env.BENCH_DB_NAME ?? 'mailroom_console_bench';
const url = new URL(serverUrl);
url.pathname = `/${NAME}`;

/** BENCH_REUSE=1 keeps the database of an earlier run (seeding a million rows takes minutes) and opens a new session. */
const reuse = process.env.BENCH_REUSE === '1';
if (!reuse) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${NAME} with (force)`);
  await admin.query(`create database ${NAME}`);
  await admin.end();
}

const database = await createDatabase({ databaseUrl: url.toString(), poolSize: 10 });
let listId: number, firstId: number, lastId: number, sessionKey: string;
if (reuse) {
  const [row] = await queryRows<{ list_id: number; first_id: number; last_id: number; admin_id: number }>(
    database.db,
    sql`select (select id from lists where name = 'Bench million')::int as list_id, min(id)::int as first_id,
               max(id)::int as last_id, (select id from administrators where login_name = 'bench-super')::int as admin_id
        from subscribers`,
  );
  ({ list_id: listId, first_id: firstId, last_id: lastId } = row!);
  sessionKey = newSecret();
  await database.db
    .insert(sessions)
    .values({ administratorId: row!.admin_id, keyHash: hashSecret(sessionKey), expiresAt: new Date(Date.now() + 3_600_000) });
} else {
  await migrate(database);
  const done = new Map<string, unknown>();
  const use = async <T>(seed: Seed<T>): Promise<T> => {
    if (!done.has(seed.name)) done.set(seed.name, await seed.run(database.db, use));
    return done.get(seed.name) as T;
  };
  const started = Date.now();
  ({ listId, firstId, lastId } = await use(millionMembers));
  ({ sessionKey } = await use(superUserSession));
  // Spread the sign-ups over 90 days so the dashboard's chart has a curve to draw.
  await database.db.execute(sql`update subscribers set created_at = now() - ((id % 90) || ' days')::interval`);
  await database.db.execute(sql`analyze subscribers`);
  // Every tenth subscriber's address on the blacklist (100,000 entries) for the Blacklist view's list and filter;
  // the subscribers' own flag is left alone so the other views' counts stay as they are.
  await database.db.execute(sql`
    insert into blacklist (email, reason, created_at)
    select email, 'Bench: hard bounce', now() - ((id % 90) || ' days')::interval from subscribers where id % 10 = 0`);
  await database.db.execute(sql`analyze blacklist`);
  console.error(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const { sentId, draftId } = await campaignsOfAMillion(database.db, listId);
// The e-mail search's index as a running service keeps it (its API processes fold new addresses in the background).
const foldStarted = Date.now();
const folded = await foldAll(database.db);
if (folded > 0) console.error(`e-mail search index: ${folded} ids folded in ${((Date.now() - foldStarted) / 1000).toFixed(1)} s`);
const [session] = await database.db
  .select({ id: sessions.id })
  .from(sessions)
  .where(eq(sessions.keyHash, hashSecret(sessionKey)));
await database.close();

const config = loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', SEND_WORKER: 'off', DATA_DIR: '/tmp/mailroom-console-bench' });
const app = await buildApp({ config });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const { browser, context } = await signedInBrowser(base, sessionKey, session!.id);
const page = await context.newPage();
page.setDefaultTimeout(30_000);

/** The Blacklist view's list of entries (its own region below the look-up). */
const entries = (p: Page) => p.getByRole('region', { name: 'Blacklisted addresses' });

const views: { name: string; path: string; ready: (p: Page) => Promise<unknown> }[] = [
  { name: 'dashboard', path: '/admin/', ready: (p) => p.locator('.chart canvas').first().waitFor() },
  { name: 'lists', path: '/admin/lists', ready: (p) => p.getByText('1,000,000').waitFor() },
  { name: 'list-members-first', path: `/admin/lists/${listId}`, ready: (p) => p.getByText('50 shown of 1,000,000').waitFor() },
  { name: 'list-members-deep', path: `/admin/lists/${listId}?after=${lastId - 100}`, ready: (p) => p.getByText('50 shown of 1,000,000').waitFor() },
  { name: 'subscribers-first', path: '/admin/subscribers', ready: (p) => p.getByText('50 shown of 1,000,000').waitFor() },
  { name: 'subscribers-deep', path: `/admin/subscribers?after=${lastId - 100}`, ready: (p) => p.getByText('50 shown of 1,000,000').waitFor() },
  { name: 'subscribers-search-rare', path: '/admin/subscribers?q=sub-987654%40', ready: (p) => p.getByText('1 shown of 1').waitFor() },
  { name: 'subscribers-search-common', path: '/admin/subscribers?q=sub-12', ready: (p) => p.getByText(/50 shown of 11,111/).waitFor() },
  { name: 'subscribers-unconfirmed', path: '/admin/subscribers?confirmed=false', ready: (p) => p.getByText('50 shown of 100,000').waitFor() },
  { name: 'subscriber', path: `/admin/subscribers/${firstId + 4242}`, ready: (p) => p.getByRole('heading', { name: 'History' }).waitFor() },
  { name: 'subscribers-by-list-first', path: `/admin/subscribers?list=${listId}`, ready: (p) => p.getByText('50 shown of 1,000,000').waitFor() },
  {
    name: 'subscribers-by-list-deep',
    path: `/admin/subscribers?list=${listId}&after=${lastId - 100}`,
    ready: (p) => p.getByText('50 shown of 1,000,000').waitFor(),
  },
  { name: 'blacklist', path: `/admin/blacklist?email=bench-sub-77%40mailroom.invalid`, ready: (p) => p.getByText('is not blacklisted').waitFor() },
  { name: 'blacklist-entries-first', path: '/admin/blacklist', ready: (p) => entries(p).getByText('50 shown of 100,000').waitFor() },
  { name: 'blacklist-filter-rare', path: '/admin/blacklist?find=sub-987650%40', ready: (p) => entries(p).getByText('1 shown of 1').waitFor() },
  {
    name: 'blacklist-filter-common',
    path: '/admin/blacklist?find=sub-12',
    ready: (p) =>
      entries(p)
        .getByText(/^50 shown of [\d,]+$/)
        .waitFor(),
  },
  { name: 'import', path: '/admin/import', ready: (p) => p.getByLabel('CSV file').waitFor() },
  { name: 'attributes', path: '/admin/attributes', ready: (p) => p.getByText('No attributes yet').waitFor() },
  { name: 'administrators', path: '/admin/administrators', ready: (p) => p.getByRole('row', { name: /bench-super/ }).waitFor() },
  { name: 'account', path: '/admin/account', ready: (p) => p.getByRole('heading', { name: 'Your account' }).waitFor() },
  { name: 'campaign-send-confirm', path: `/admin/campaigns/${draftId}/send`, ready: (p) => p.getByTestId('audience').getByText('900,000').waitFor() },
  { name: 'campaign-send-progress', path: `/admin/campaigns/${sentId}/send`, ready: (p) => p.getByText('1,000,000 of 1,000,000 done').waitFor() },
  { name: 'campaign-deliveries-first', path: `/admin/campaigns/${sentId}/deliveries`, ready: (p) => p.getByText('50 shown of 1,000,000').waitFor() },
  {
    name: 'campaign-deliveries-failed',
    path: `/admin/campaigns/${sentId}/deliveries?status=failed`,
    ready: (p) => p.getByText('50 shown of 10,000').waitFor(),
  },
  { name: 'campaign-report', path: `/admin/campaigns/${sentId}/report`, ready: (p) => p.locator('.chart canvas').waitFor() },
  { name: 'campaign-report-bounces', path: `/admin/campaigns/${sentId}/report`, ready: (p) => p.getByText('20 shown of 3,100').waitFor() },
  // The campaign performance section, then every section (the domain and local-part ones read rollups).
  { name: 'analytics', path: '/admin/analytics', ready: (p) => p.locator('.chart canvas').first().waitFor() },
  { name: 'analytics-all-sections', path: '/admin/analytics', ready: (p) => p.locator('.chart canvas').nth(3).waitFor() },
];

/** BENCH_VIEWS=analytics,campaign-report measures only the views whose name starts with one of these. */
const only = process.env.BENCH_VIEWS?.split(',').filter(Boolean) ?? [];
const measured = only.length === 0 ? views : views.filter((v) => only.some((prefix) => v.name.startsWith(prefix)));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const view of measured) {
  const viewMs: number[] = [];
  const apiMs: number[] = [];
  for (let visit = 0; visit < 4; visit++) {
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(view.path);
    await view.ready(page);
    const elapsed = Date.now() - t0;
    const api = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.includes('/api/v2/'))
        .map((e) => e.duration),
    );
    if (visit === 0) continue;
    viewMs.push(elapsed);
    apiMs.push(Math.max(0, ...api));
  }
  console.log(
    JSON.stringify({ view: view.name, database: 'postgres', subscribers: 1_000_000, view_ms: median(viewMs), api_max_ms: Math.round(median(apiMs)) }),
  );
}
await browser.close();
await app.close();

/**
 * A sent campaign of the million-member list with a delivery record for every member (every hundredth failed) and the
 * figures the sender and tracking keep beside them, and a draft to the same list; made once, found again with
 * BENCH_REUSE=1.
 */
async function campaignsOfAMillion(db: Db, list: number): Promise<{ sentId: number; draftId: number }> {
  const found = await queryRows<{ id: number; subject: string }>(
    db,
    sql`select id, subject from campaigns where subject in ('Bench million send', 'Bench million draft')`,
  );
  const sent = found.find((c) => c.subject === 'Bench million send');
  const draft = found.find((c) => c.subject === 'Bench million draft');
  if (sent && draft) return { sentId: sent.id, draftId: draft.id };
  const started = Date.now();
  const base = { fromField: 'Bench <bench@mailroom.invalid>', body: '<p>Hello [EMAIL]</p>', textBody: '' };
  const [s, d] = await db
    .insert(campaigns)
    .values([
      {
        ...base,
        uniqueId: 'bench-million-send',
        subject: 'Bench million send',
        status: 'sent',
        sendStart: new Date(Date.now() - 2 * 86_400_000),
        sentAt: new Date(Date.now() - 86_400_000),
      },
      { ...base, uniqueId: 'bench-million-draft', subject: 'Bench million draft' },
    ])
    .returning({ id: campaigns.id });
  const sentId = s!.id;
  const draftId = d!.id;
  await db.execute(sql`insert into list_campaigns (campaign_id, list_id) values (${sentId}, ${list}), (${draftId}, ${list})`);
  await db.execute(sql`
    insert into deliveries (campaign_id, subscriber_id, status, attempts, last_response, sent_at, queued_at, updated_at)
    select ${sentId}, m.subscriber_id, case when m.subscriber_id % 100 = 0 then 'failed' else 'sent' end, 1,
           case when m.subscriber_id % 100 = 0 then '550 5.1.1 No such user' else '250 2.0.0 Ok' end,
           case when m.subscriber_id % 100 = 0 then null else now() - interval '1 day' end, now() - interval '2 days',
           now() - interval '1 day'
    from subscriptions m where m.list_id = ${list} order by m.subscriber_id`);
  await db.execute(sql`
    insert into campaign_counters (campaign_id, sent, failed, opens, unique_opens, human_opens, unique_human_opens,
                                   clicks, unique_clicks, human_clicks, bounces)
    values (${sentId}, 990000, 10000, 412000, 301000, 350000, 260000, 61000, 42000, 58000, 3100)`);
  await db.execute(sql`
    insert into campaign_hourly_events (campaign_id, hour, opens, human_opens, clicks, human_clicks)
    select ${sentId}, date_trunc('hour', now()) - make_interval(hours => h), 200 + (48 - h) * 150, 150 + (48 - h) * 120,
           30 + (48 - h) * 20, 28 + (48 - h) * 19
    from generate_series(0, 47) as h`);
  await db.execute(sql`
    insert into links (campaign_id, url, clicks, unique_clicks)
    select ${sentId}, 'https://bench.example.com/page-' || n, 12000 * n, 9000 * n from generate_series(1, 5) as n`);
  await db.execute(sql`
    insert into campaign_daily_sends (campaign_id, day, sent, failed)
    values (${sentId}, (now() at time zone 'UTC')::date - 2, 600000, 6000), (${sentId}, (now() at time zone 'UTC')::date - 1, 390000, 4000)`);
  // The bounce records behind the counter's 3,100 (the report lists them), matched to failed deliveries.
  await db.execute(sql`
    insert into bounces (campaign_id, subscriber_id, delivery_id, status, comment, received_at)
    select ${sentId}, d.subscriber_id, d.id, 'bounced list message', 'Bench: 550 5.1.1 unknown user', now() - interval '20 hours'
    from deliveries d where d.campaign_id = ${sentId} and d.status = 'failed' order by d.id limit 3100`);
  await db.execute(sql`analyze deliveries`);
  console.error(`campaign of a million deliveries seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { sentId, draftId };
}
