import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { AppContext } from '../context.js';
import type { Database, Db } from './client.js';
import { installationSecrets } from './schema/system.js';

export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));
export const routinesFolder = fileURLToPath(new URL('./routines', import.meta.url));

const MIGRATION_LOCK = 0x6d61696c; // "mail": any process migrating holds it, the others wait

/** Applies the committed migrations in `drizzle/`; safe to run from several processes at once. */
export async function migrate(database: Database): Promise<void> {
  await database.withLock(MIGRATION_LOCK, async () => {
    if (database.kind === 'pglite') {
      await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    } else {
      await migratePg(database.db as unknown as NodePgDatabase, { migrationsFolder });
    }
    await applyRoutines(database);
  });
}

/** Functions and triggers drizzle-kit cannot express (see routines/README.md); each file is idempotent. */
async function applyRoutines(database: Database): Promise<void> {
  const files = readdirSync(routinesFolder)
    .filter((name) => name.endsWith('.sql'))
    .sort();
  for (const name of files) await database.exec(readFileSync(join(routinesFolder, name), 'utf8'));
}

/** The installation secrets the routines created (see schema/system.ts). */
export async function loadSecrets(db: Db): Promise<AppContext['secrets']> {
  const rows = await db.select().from(installationSecrets);
  const linkToken = rows.find((row) => row.name === 'link_token')?.value;
  if (!linkToken) throw new Error('installation secret link_token is missing: migrations were not applied');
  // Absent only before routines/031 ran: then no link takes an old token.
  const legacyLinkTokensBelow = Number(rows.find((row) => row.name === 'legacy_link_tokens_below')?.value ?? 0);
  return { linkToken, legacyLinkTokensBelow };
}

// `npm run db:migrate`: apply migrations to the configured database and exit.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { configOrExit, runMain } = await import('../process.js');
  const { configuredDatabase, createDatabase } = await import('./client.js');
  runMain('mailroom db:migrate', async () => {
    const config = configOrExit('mailroom db:migrate');
    const database = await createDatabase(configuredDatabase(config));
    await migrate(database);
    await database.close();
    console.warn('migrations applied');
  });
}
