import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { backupTo, restoreFrom } from '../src/db/snapshot/commands.js';

/*
 * `npm run bench:snapshot`: npm run backup and npm run restore on 1,000,000 subscribers (SNAPSHOT_SUBSCRIBERS for
 * another size), each with two attribute values and one or two list memberships. Backs up PostgreSQL, restores the
 * file into a new PostgreSQL database and into a new embedded DATA_DIR, then backs that embedded one up (opened
 * directly: no service runs on it). One JSON line per step on stdout: seconds, rows a second, the file's size and
 * this process's peak RSS. PostgreSQL at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); the
 * databases mailroom_snapshot_bench and mailroom_snapshot_bench_restored are dropped and created.
 */

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SUBSCRIBERS = Number(process.env.SNAPSHOT_SUBSCRIBERS ?? 1_000_000);
const SOURCE = 'mailroom_snapshot_bench';
const TARGET = 'mailroom_snapshot_bench_restored';
const urlOf = (name: string) => Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

async function recreate(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
}

function report(step: string, seconds: number, rows: number, file?: string): void {
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const line = {
    step,
    seconds: Number(seconds.toFixed(1)),
    rows,
    rows_per_second: Math.round(rows / seconds),
    ...(file ? { file_mb: Number((statSync(file).size / 1e6).toFixed(1)) } : {}),
    peak_rss_mb: peakRssMb,
    load: loadavg().map((n) => Number(n.toFixed(1))),
  };
  console.log(JSON.stringify(line));
}

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const started = process.hrtime.bigint();
  const value = await fn();
  return [value, Number(process.hrtime.bigint() - started) / 1e9];
};

await recreate(SOURCE);
await recreate(TARGET);
const work = mkdtempSync(join(tmpdir(), 'mailroom-snapshot-bench-'));
try {
  const source = await createDatabase({ databaseUrl: urlOf(SOURCE), poolSize: 2 });
  await migrate(source);
  const seeded = Date.now();
  await source.db.execute(sql`insert into lists (name) values ('Newsletter'), ('Offers')`);
  await source.db.execute(sql`insert into attribute_definitions (name, type) values ('First name', 'textline'), ('City', 'textline')`);
  await source.db.execute(sql`
    insert into subscribers (email, unique_id, confirmed, html_email)
    select 'person' || n || '@example.org', md5('snapshot-bench-' || n), n % 10 <> 0, n % 3 = 0 from generate_series(1, ${SUBSCRIBERS}) as n`);
  await source.db.execute(sql`
    insert into subscriber_attribute_values (subscriber_id, definition_id, value)
    select s.id, d.id, case when d.name = 'City' then 'Town ' || (s.id % 500) else 'Name ' || s.id end
    from subscribers s cross join attribute_definitions d`);
  await source.db.execute(sql`
    insert into subscriptions (list_id, subscriber_id)
    select l.id, s.id from subscribers s join lists l on l.name = 'Newsletter' or s.id % 4 = 0`);
  await source.db.execute(sql`analyze`);
  console.error(`seeded ${SUBSCRIBERS} subscribers in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
  await source.close();

  const file = join(work, 'bench.snapshot.gz');
  const [backup, backupSeconds] = await timed(() => backupTo(loadConfig({ DATABASE_URL: urlOf(SOURCE) }), file));
  report('backup PostgreSQL', backupSeconds, backup.rows, file);

  const [restored, restoreSeconds] = await timed(() => restoreFrom(loadConfig({ DATABASE_URL: urlOf(TARGET) }), file));
  report('restore into PostgreSQL', restoreSeconds, restored.rows);

  const dataDir = join(work, 'data');
  const [embedded, embeddedSeconds] = await timed(() => restoreFrom(loadConfig({ DATABASE_URL: '', DATA_DIR: dataDir }), file));
  report('restore into PGlite', embeddedSeconds, embedded.rows);

  // What a backup through the running service costs that service: its database thread copies the data directory.
  const held = await createDatabase({ databaseUrl: '', dataDir });
  const [copy, copySeconds] = await timed(() => held.dumpDataDir!());
  await held.close();
  console.log(
    JSON.stringify({
      step: 'PGlite data-directory copy (requests wait meanwhile)',
      seconds: Number(copySeconds.toFixed(1)),
      copy_mb: Number((copy.size / 1e6).toFixed(1)),
      load: loadavg().map((n) => Number(n.toFixed(1))),
    }),
  );

  const again = join(work, 'again.snapshot.gz');
  const [fromEmbedded, fromEmbeddedSeconds] = await timed(() => backupTo(loadConfig({ DATABASE_URL: '', DATA_DIR: dataDir }), again));
  report('backup PGlite', fromEmbeddedSeconds, fromEmbedded.rows, again);
} finally {
  rmSync(work, { recursive: true, force: true });
}
