import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabase, type Database } from '../src/db/client.js';
import { migrationsFolder, routinesFolder } from '../src/db/migrate.js';

/*
 * The golden database: migrated once per test run (test/prepare.ts), cloned for every test file, so files are
 * isolated and none pays for migrating. PGlite: a copy of a migrated DATA_DIR in a temporary directory.
 * PostgreSQL (DATABASE_URL set): CREATE DATABASE … TEMPLATE.
 */

// Scoped to this checkout, so test runs from two checkouts on one server never drop each other's databases.
const checkout = createHash('sha256').update(process.cwd()).digest('hex').slice(0, 8);
export const GOLDEN_PG_DATABASE = `mailroom_golden_${checkout}`;
export const TEST_PG_PREFIX = `mailroom_t_${checkout}_`;

/** The command that builds the golden database (and the console), named in the errors when it is missing. */
const PREPARE = 'npx tsx test/prepare.ts';

/** Changes whenever a migration does, so a stale golden dump is never used. */
export function migrationsHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(entry.name).update(readFileSync(path));
    }
  };
  // Routines are applied with the migrations, so a changed trigger must build a new golden database too.
  walk(migrationsFolder);
  walk(routinesFolder);
  return hash.digest('hex').slice(0, 16);
}

export function goldenPglitePath(): string {
  return join(process.cwd(), '.cache', `golden-pglite-${migrationsHash()}.tar.gz`);
}

/**
 * The same database as a DATA_DIR on disk, which each test file copies: opening a copy took half the time of loading
 * the dump into memory (1.0 against 1.8 s here, of 2.3 s of CPU), once per test app, some 250 times a run.
 */
export function goldenPgliteDataDir(): string {
  return join(process.cwd(), '.cache', `golden-pglite-${migrationsHash()}`);
}

/**
 * Where each file's copy goes: a memory file system when there is one. A copy is 42 MB (a 16 MB WAL segment among
 * them), written and deleted some 250 times a run; on the disk the copy and its deletion took 0.2–0.9 s of CPU
 * each, and the kernel's writeback more besides, against 0.1 s in /dev/shm, where nothing is written back.
 */
const COPIES = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export interface TestDatabase {
  readonly database: Database;
  /** The connection string of the clone (PostgreSQL), for tests that start a second process. */
  readonly url: string;
  drop(): Promise<void>;
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const baseUrl = process.env.DATABASE_URL ?? '';
  if (!baseUrl) {
    const golden = goldenPgliteDataDir();
    if (!existsSync(golden)) throw new Error(`No golden database in ${golden}: run \`${PREPARE}\` first (npm test runs it too).`);
    const dataDir = mkdtempSync(join(COPIES, 'mailroom-test-'));
    const remove = () => rmSync(dataDir, { recursive: true, force: true });
    // A test that dies without closing its database leaves no copy behind.
    process.once('exit', remove);
    cpSync(golden, dataDir, { recursive: true });
    const database = await createDatabase({ databaseUrl: '', dataDir, sharedBuffers: '16MB' });
    const close = database.close;
    return {
      database: {
        ...database,
        async close() {
          await close();
          remove();
          process.off('exit', remove);
        },
      },
      url: '',
      drop: async () => {},
    };
  }
  const name = `${TEST_PG_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    // Two files cloning at the same instant can collide on the template; a short retry settles it.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database "${name}" template "${GOLDEN_PG_DATABASE}"`);
        break;
      } catch (err) {
        if (/template database .* does not exist/.test(String(err))) {
          throw new Error(`No golden database ${GOLDEN_PG_DATABASE} on ${baseUrl}: run \`DATABASE_URL=${baseUrl} ${PREPARE}\` first.`);
        }
        if (attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = withDatabaseName(baseUrl, name);
  const database = await createDatabase({ databaseUrl: url, poolSize: 5 });
  return {
    database,
    url,
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`).finally(() => client.end());
    },
  };
}
