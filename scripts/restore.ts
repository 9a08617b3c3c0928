import { configOrExit, runMain } from '../src/process.js';
import { restoreFrom } from '../src/db/snapshot/commands.js';
import { SnapshotError } from '../src/db/snapshot/format.js';

/** `npm run restore -- FILE`: loads a snapshot into the configured database, which must be empty. */
runMain('mailroom restore', async () => {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npm run restore -- FILE   (into DATABASE_URL, or DATA_DIR when it is unset; the database must be empty)');
    process.exit(64);
  }
  const config = configOrExit('mailroom restore');
  const started = Date.now();
  try {
    const summary = await restoreFrom(config, file);
    console.warn(
      `restored ${summary.rows} rows of ${summary.tables} tables (schema ${summary.schema.migrations}, ${summary.schema.last ?? '?'}) ` +
        `from ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
    console.error(`mailroom restore: ${err.message}`);
    process.exit(1);
  }
});
