import { configOrExit, runMain } from '../src/process.js';
import { backupTo } from '../src/db/snapshot/commands.js';
import { SnapshotError } from '../src/db/snapshot/format.js';

/** `npm run backup -- FILE`: a consistent snapshot of the configured database, while the service runs. */
runMain('mailroom backup', async () => {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npm run backup -- FILE   (DATABASE_URL or DATA_DIR name the database, as for npm start)');
    process.exit(64);
  }
  const config = configOrExit('mailroom backup');
  const started = Date.now();
  try {
    const summary = await backupTo(config, file);
    console.warn(
      `backed up ${summary.rows} rows of ${summary.tables} tables from ${summary.via} to ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
    console.error(`mailroom backup: ${err.message}`);
    process.exit(1);
  }
});
