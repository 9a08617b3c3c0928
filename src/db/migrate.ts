import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { Database } from './client.js';

export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

const MIGRATION_LOCK = 0x6d61696c; // "mail": any process migrating holds it, the others wait

/** Applies the committed migrations in `drizzle/`; safe to run from several processes at once. */
export async function migrate(database: Database): Promise<void> {
  await database.withLock(MIGRATION_LOCK, async () => {
    if (database.kind === 'pglite') {
      await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    } else {
      await migratePg(database.db as unknown as NodePgDatabase, { migrationsFolder });
    }
  });
}

// `npm run db:migrate`: apply migrations to the configured database and exit.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { loadConfig } = await import('../config.js');
  const { createDatabase } = await import('./client.js');
  const config = loadConfig();
  const database = await createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(database);
  await database.close();
  console.warn('migrations applied');
}
