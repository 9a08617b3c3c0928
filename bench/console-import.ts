import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, queryRows } from '../src/db/client.js';
import { hashSecret } from '../src/identity/tokens.js';
import { migrate } from '../src/db/migrate.js';
import { lists, sessions, subscribers } from '../src/db/schema/index.js';
import { signedInBrowser } from './console-browser.js';
import { superUserSession } from './seeds.js';

/*
 * `npm run bench:console-import`: a CSV of IMPORT_ROWS rows (default 1,000,000; email, confirmed, City) imported
 * through the console's Import view in Debian's Chromium, into a list, on a database seeded with 100,000
 * subscribers of whom 50,000 are in the file (skipped, as "update existing" is off). One JSON line: the upload's
 * time (the browser's upload `load` event), the whole import until the summary shows, rows per second, and whether
 * the page stayed responsive meanwhile: the largest gap between two animation frames (a frozen page draws none)
 * and the long tasks (over 50 ms) the page ran. The service runs in this process, as in bench/console-views.ts.
 * PostgreSQL only (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; the database
 * mailroom_console_import_bench is dropped and created).
 */

const ROWS = Number(process.env.IMPORT_ROWS ?? 1_000_000);
const SEEDED = 100_000;
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NAME = 'mailroom_console_import_bench';
const url = new URL(serverUrl);
url.pathname = `/${NAME}`;

const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`drop database if exists ${NAME} with (force)`);
await admin.query(`create database ${NAME}`);
await admin.end();

const database = await createDatabase({ databaseUrl: url.toString(), poolSize: 10 });
await migrate(database);
const { sessionKey } = await superUserSession.run(database.db, () => Promise.reject(new Error('no nested seeds')));
const [list] = await database.db.insert(lists).values({ name: 'Imported', isPublic: false }).returning({ id: lists.id });
// Half of the seeded people are in the file (rows 1..50,000), half are not.
await database.db.execute(sql`
  insert into ${subscribers} (email, unique_id, confirmed)
  select case when n <= ${SEEDED / 2} then 'import-' || n || '@example.org' else 'seeded-' || n || '@example.org' end,
         md5('seeded-' || n), true
  from generate_series(1, ${SEEDED}) as n`);
await database.db.execute(sql`analyze ${subscribers}`);
const [session] = await database.db
  .select({ id: sessions.id })
  .from(sessions)
  .where(eq(sessions.keyHash, hashSecret(sessionKey)));
await database.close();

// The file, written as a stream: 1,000,000 rows are about 31 MB, under the default UPLOAD_LIMIT of 50 MB.
const dir = mkdtempSync(join(tmpdir(), 'mailroom-import-bench-'));
const file = join(dir, 'people.csv');
const out = createWriteStream(file);
out.write('email,confirmed,City\n');
for (let i = 1; i <= ROWS; i++) {
  if (!out.write(`import-${i}@example.org,${i % 10 === 0 ? 0 : 1},${i % 2 ? 'Oslo' : 'Lima'}\n`)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');
const fileMb = statSync(file).size / 1_048_576;

const config = loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', SEND_WORKER: 'off', DATA_DIR: join(dir, 'data') });
const app = await buildApp({ config });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const city = await app.inject({
  method: 'POST',
  url: '/api/v2/attributes',
  headers: { 'php-auth-pw': sessionKey },
  payload: { name: 'City', type: 'textline' },
});
if (city.statusCode !== 201) throw new Error(`creating the City attribute: ${city.statusCode} ${city.body}`);

let peakRss = process.memoryUsage().rss;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);

const { browser, context } = await signedInBrowser(base, sessionKey, session!.id);
// In the page, as a string (tsx would add a naming helper the page lacks to a function): an animation-frame
// heartbeat, long tasks, and when the upload and the answer ended, all on the page's clock.
await context.addInitScript(`(() => {
  const probe = { gaps: [], longTasks: [], start: null, uploaded: null, answered: null };
  window.__probe = probe;
  let last = null;
  const tick = (t) => { if (probe.start !== null && last !== null) probe.gaps.push(t - last); last = t; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  new PerformanceObserver((l) => { for (const e of l.getEntries()) if (probe.start !== null) probe.longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: false });
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (body) {
    probe.start = performance.now();
    this.upload.addEventListener('load', () => { probe.uploaded = performance.now(); });
    this.addEventListener('loadend', () => { probe.answered = performance.now(); });
    return send.call(this, body);
  };
})()`);
const page = await context.newPage();
page.setDefaultTimeout(60_000);
await page.goto('/admin/import');
await page.getByLabel('CSV file').setInputFiles(file);
await page.getByRole('table', { name: 'Columns found' }).waitFor();
await page.getByLabel('Add everyone to list').selectOption(String(list!.id));
await page.getByLabel(/join without any mail/).check();
const t0 = Date.now();
await page.getByRole('button', { name: 'Import' }).click();
const summary = page.getByRole('region', { name: 'Import summary' });
await summary.waitFor({ timeout: 3_600_000 });
const totalS = (Date.now() - t0) / 1000;
clearInterval(rssTimer);

interface Probe {
  gaps: number[];
  longTasks: number[];
  start: number;
  uploaded: number | null;
  answered: number;
}
const probe = (await page.evaluate('window.__probe')) as Probe;
const stat = async (label: string) =>
  Number(((await summary.locator('.stat').filter({ hasText: label }).locator('.stat-value').textContent()) ?? '').replace(/,/g, ''));
const imported = await stat('Imported');
const skipped = await stat('Skipped');
const rejected = await stat('Rejected rows');
const check = await createDatabase({ databaseUrl: url.toString(), poolSize: 1 });
const [members] = await queryRows<{ n: number }>(check.db, sql`select count(*)::int as n from subscriptions where list_id = ${list!.id}`);
await check.close();
const gaps = [...probe.gaps].sort((a, b) => a - b);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
console.log(
  JSON.stringify({
    bench: 'console-import',
    database: 'postgres',
    rows: ROWS,
    seeded_subscribers: SEEDED,
    file_mb: round(fileMb),
    upload_s: probe.uploaded === null ? null : round((probe.uploaded - probe.start) / 1000),
    total_s: round(totalS),
    rows_per_s: Math.round(ROWS / totalS),
    imported,
    skipped,
    rejected,
    list_members: members!.n,
    frames: gaps.length,
    frame_gap_max_ms: round(gaps.at(-1) ?? 0),
    frame_gap_p99_ms: round(gaps[Math.floor(gaps.length * 0.99)] ?? 0),
    long_tasks: probe.longTasks.length,
    long_task_max_ms: round(Math.max(0, ...probe.longTasks)),
    // This process: the service and the bench's driver (the file is written before the service starts).
    process_peak_rss_mb: round(peakRss / 1_048_576),
  }),
);
await browser.close();
await app.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
