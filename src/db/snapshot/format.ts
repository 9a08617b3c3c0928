import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationsFolder } from '../migrate.js';

/*
 * A snapshot (npm run backup) is a gzip'd text file of JSON lines, the same for both databases, so that a backup of
 * the embedded database restores into PostgreSQL and back:
 *
 *   {"format":"mailroom-snapshot","version":1,"schema":{"migrations":12,"last":"0011_…"},"taken_at":…,"source":…}
 *   {"table":"lists","columns":["id","name",…],"rows":2}
 *   {"id":1,"name":"News",…}                                  ← one line per row: row_to_json, so every type
 *   {"id":2,"name":"Offers",…}                                   round-trips through json_populate_recordset
 *   …
 *   {"end":true,"tables":49,"rows":123456}
 *
 * Tables come in foreign-key order (a table after those it references), so a restore inserts them as they come.
 * The counts let a restore tell a cut-off file from a whole one.
 */

export const SNAPSHOT_FORMAT = 'mailroom-snapshot';
export const SNAPSHOT_VERSION = 1;

export interface SnapshotHeader {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: number;
  /** How many of drizzle/'s migrations the database had applied, and the last one's tag. */
  readonly schema: { readonly migrations: number; readonly last: string | null };
  readonly taken_at: string;
  readonly source: 'pglite' | 'postgres';
}

export interface TableHeader {
  readonly table: string;
  readonly columns: readonly string[];
  readonly rows: number;
}

export interface SnapshotEnd {
  readonly end: true;
  readonly tables: number;
  readonly rows: number;
}

/** A snapshot that cannot be read or restored; the message says why and what to do. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** The migrations this build of Mailroom knows, in order (drizzle/meta/_journal.json). */
export function knownMigrations(): string[] {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  return journal.entries.map((entry) => entry.tag);
}

/**
 * Tables a freshly migrated database already holds rows in (the routines and migrations seed them): a restore
 * replaces their rows instead of counting them as data in the way. The installation secrets are the backup's, so
 * links mailed before the move (tracking, unsubscribe) keep working after it; the analytics snapshots' state goes
 * with the snapshot rows it describes.
 */
export const SEEDED_TABLES: ReadonlySet<string> = new Set(['installation_secrets', 'subscriber_counts', 'analytics_snapshots']);
