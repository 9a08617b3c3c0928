import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { transpileTree } from '../scripts/transpile.js';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { newestMtime } from './process.js';
import { GOLDEN_PG_DATABASE, TEST_PG_PREFIX, goldenPgliteDataDir, goldenPglitePath, withDatabaseName } from './db.js';

/** Runs once before the test files: builds the golden database they clone. */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL ?? '';
  if (!url) {
    const path = goldenPglitePath();
    if (existsSync(path) && existsSync(goldenPgliteDataDir())) return;
    const database = await createDatabase({ databaseUrl: '', dataDir: 'memory://' });
    await migrate(database);
    const client = (database.db as unknown as { $client: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).$client;
    const dump = await client.dumpDataDir('gzip');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
    await database.close();
    // The copy each test file starts from (test/db.ts), written by PGlite itself from the dump.
    rmSync(goldenPgliteDataDir(), { recursive: true, force: true });
    const onDisk = await createDatabase({ databaseUrl: '', dataDir: goldenPgliteDataDir(), loadDataDir: new Blob([readFileSync(path)]) });
    await onDisk.close();
    console.log(`golden PGlite database written to ${path}`);
    return;
  }

  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
  } catch (err) {
    console.error(`Cannot reach PostgreSQL at DATABASE_URL: ${(err as Error).message}`);
    process.exit(1);
  }
  // Leftovers of an interrupted run, then a fresh golden database.
  const stale = await admin.query<{ datname: string }>(`select datname from pg_database where datname like '${TEST_PG_PREFIX}%' or datname = $1`, [
    GOLDEN_PG_DATABASE,
  ]);
  for (const { datname } of stale.rows) await admin.query(`drop database if exists "${datname}" with (force)`);
  await admin.query(`create database "${GOLDEN_PG_DATABASE}"`);
  await admin.end();
  const database = await createDatabase({ databaseUrl: withDatabaseName(url, GOLDEN_PG_DATABASE), poolSize: 1 });
  await migrate(database);
  await database.close();
  console.log(`golden PostgreSQL database ${GOLDEN_PG_DATABASE} migrated`);
}

await main();

// The admin console's browser tests (test/console) load the built console: build it from the current web/ sources,
// unless the build is newer than all of them (`npm ci` has just built it, and CI runs the tests twice).
if (consoleBuildIsStale()) await (await import('vite')).build({ configFile: 'web/vite.config.ts', logLevel: 'warn' });

// `npm test` runs the suite as JavaScript, compiled here into .cache/js/ (see compileSuite).
if (process.argv.includes('--compile')) await compileSuite(join('.cache', 'js'));

/**
 * src/ and test/ transpiled to `outdir`, at the same depth below it as in the checkout, with the checkout's other
 * entries (drizzle/, web/, docs/, node_modules/ …) linked beside them, so every path a module builds from its own
 * URL still resolves. Running the test files through tsx cost each of them about 1.3 s of CPU in its loader hooks, and
 * each PGlite worker thread (src/db/pglite-thread.ts) as much again; a pass runs some 160 files on 2 cores.
 */
async function compileSuite(outdir: string): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  await transpileTree(['src', 'test'], '.', outdir, 'inline');
  for (const name of readdirSync('.')) {
    if (!['src', 'test', '.cache', '.git'].includes(name)) symlinkSync(join('..', '..', name), join(outdir, name));
  }
}

function consoleBuildIsStale(): boolean {
  const built = join('web', 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'docs/openapi.json'].some((path) => newestMtime(path) > builtAt);
}
