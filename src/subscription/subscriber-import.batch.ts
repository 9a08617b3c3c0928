import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/client.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import type { Flag, ImportRow } from './subscriber-import.columns.js';
import type { IdList } from './subscriber-import.mail.js';
import * as repo from './subscriber-import.repository.js';

/*
 * One batch of import rows, written with one statement per table (reference §8.4 row semantics, in bulk).
 */

export interface BatchOptions {
  listId: number | null;
  updateExisting: boolean;
  sendConfirmation: boolean;
  /** Without a `confirmed` column rows count as `confirmed=1` (never an `invalid_` address, which must not be reached). */
  markConfirmed: boolean;
  adminId: number;
  login: string;
  origin: HistoryOrigin;
}

/** What the batches add up to; `reject` takes the error line of a rejected row (null: skipped silently). */
export interface BatchTally {
  imported: number;
  updated: number;
  /** Subscribers created or updated that are left unconfirmed (campaigns do not reach them). */
  unconfirmed: number;
  readonly mail: IdList;
  reject(error: string | null): void;
}

/** Each flag: its import column, and its name in history lines and in the existing row. */
const FLAG_FIELDS: [Flag, 'confirmed' | 'blacklisted' | 'html_email' | 'disabled'][] = [
  ['confirmed', 'confirmed'],
  ['blacklisted', 'blacklisted'],
  ['htmlEmail', 'html_email'],
  ['disabled', 'disabled'],
];

function newColumns(rows: ImportRow[]): repo.NewSubscribers {
  const hex = randomBytes(16 * rows.length).toString('hex');
  return {
    email: rows.map((r) => r.email),
    uniqueId: rows.map((_, i) => hex.slice(i * 32, i * 32 + 32)),
    confirmed: rows.map((r) => r.flags.confirmed ?? false),
    blacklisted: rows.map((r) => r.flags.blacklisted ?? false),
    htmlEmail: rows.map((r) => r.flags.htmlEmail ?? false),
    disabled: rows.map((r) => r.flags.disabled ?? false),
    extraData: rows.map((r) => r.extraData ?? null),
    foreignKey: rows.map((r) => r.foreignKey ?? null),
  };
}

function markConfirmed(row: ImportRow): ImportRow {
  if (row.flags.confirmed !== undefined || row.invalidEmail) return row;
  return { ...row, flags: { ...row.flags, confirmed: true } };
}

/**
 * Writes one batch. Without foreign keys the new rows are inserted first (ON CONFLICT DO NOTHING) and only the
 * rows that were not new are looked up: a fresh import costs no lookup at all. With foreign keys every row is
 * looked up first, since a row matching by key must not be inserted.
 */
export async function writeBatch(tx: Executor, given: ImportRow[], options: BatchOptions, tally: BatchTally): Promise<void> {
  const rows = options.markConfirmed ? given.map(markConfirmed) : given;
  const foreignKeys = rows.flatMap((r) => (r.foreignKey === undefined ? [] : [r.foreignKey]));
  const barred = await repo.blacklistedEmails(tx, rows.map((r) => r.email));

  let created = new Map<string, number>();
  let createdRows: ImportRow[] = [];
  let pending = rows;
  if (foreignKeys.length === 0) {
    createdRows = rows.filter((r) => !barred.has(r.email));
    created = await repo.insertSubscribers(tx, newColumns(createdRows));
    pending = rows.filter((r) => !created.has(r.email));
  }
  const existing = pending.length > 0 ? await repo.findExisting(tx, pending.map((r) => r.email), foreignKeys) : [];
  const byEmail = new Map(existing.map((s) => [s.email.toLowerCase(), s]));
  const byForeignKey = new Map(existing.filter((s) => s.foreign_key !== null).map((s) => [s.foreign_key!, s]));

  const toCreate: ImportRow[] = [];
  const updates: repo.SubscriberUpdates = { id: [], email: [], confirmed: [], blacklisted: [], htmlEmail: [], disabled: [], extraData: [], foreignKey: [] };
  const history = { ids: [] as number[], details: [] as string[] };
  const attributes = { ids: [] as number[], definitions: [] as number[], values: [] as (string | null)[] };
  const toSubscribe: number[] = [];
  /** Subscribers that stay unconfirmed after this batch and may be mailed when newly subscribed. */
  const mailable = new Set<number>();
  const blacklistEmails: string[] = [];
  const targeted = new Set<number>();
  const later: ImportRow[] = [];
  const addAttributes = (id: number, row: ImportRow) => {
    for (const a of row.attributes) {
      attributes.ids.push(id);
      attributes.definitions.push(a.definitionId);
      attributes.values.push(a.value);
    }
  };

  for (const row of pending) {
    const sameEmail = byEmail.get(row.email);
    const sameKey = row.foreignKey !== undefined ? byForeignKey.get(row.foreignKey) : undefined;
    if (sameEmail && sameKey && sameEmail.id !== sameKey.id) {
      tally.reject(`Line ${row.line}: Conflict: email and foreign key refer to different subscribers.`);
      continue;
    }
    const target = sameKey ?? sameEmail;
    if (!target) {
      if (barred.has(row.email)) tally.reject(`Line ${row.line}: ${row.email} is blacklisted; not imported.`);
      else if (foreignKeys.length > 0) toCreate.push(row);
      // Inserted by nobody and found nowhere: another writer took the address and dropped it again meanwhile.
      else tally.reject(`Line ${row.line}: ${row.email} changed while importing; not imported.`);
      continue;
    }
    // Two rows reaching one subscriber (one by address, one by foreign key): the second waits for the next round.
    if (targeted.has(target.id)) {
      later.push(row);
      continue;
    }
    targeted.add(target.id);
    const blocked = target.blacklisted || barred.has(target.email.toLowerCase()) || barred.has(row.email) || row.flags.blacklisted === true;
    if (options.listId !== null && !blocked) toSubscribe.push(target.id);
    if (!options.updateExisting) {
      if (!target.confirmed) mailable.add(target.id);
      tally.reject(null);
      continue;
    }
    const lines: string[] = [];
    const emailChanged = row.email !== target.email.toLowerCase();
    if (emailChanged) lines.push('email *changed*');
    const [confirmed, blacklisted, htmlEmail, disabled] = FLAG_FIELDS.map(([flag, field]) => {
      let value = row.flags[flag];
      if (value === undefined) return null;
      if (flag === 'blacklisted' && !value) value = target.blacklisted; // an import never lifts a blacklisting
      if (value !== target[field]) lines.push(`${field} = ${String(value)} *changed* from ${String(target[field])}`);
      return value;
    });
    if (row.extraData !== undefined && row.extraData !== (target.extra_data ?? '')) lines.push('extra_data *changed*');
    if (row.foreignKey !== undefined && row.foreignKey !== target.foreign_key) lines.push('foreign_key *changed*');
    if (row.attributeNames.length > 0) lines.push(`attributes set: ${row.attributeNames.join(', ')}`);
    updates.id.push(target.id);
    updates.email.push(emailChanged ? row.email : null);
    updates.confirmed.push(confirmed ?? null);
    updates.blacklisted.push(blacklisted ?? null);
    updates.htmlEmail.push(htmlEmail ?? null);
    updates.disabled.push(disabled ?? null);
    updates.extraData.push(row.extraData ?? null);
    updates.foreignKey.push(row.foreignKey ?? null);
    if (!(confirmed ?? target.confirmed)) {
      tally.unconfirmed++;
      if (!row.invalidEmail) mailable.add(target.id);
    }
    if (blacklisted && !target.blacklisted) blacklistEmails.push(row.email);
    addAttributes(target.id, row);
    history.ids.push(target.id);
    history.details.push(lines.length > 0 ? lines.join('\n') : 'No user details changed');
    tally.updated++;
  }

  if (toCreate.length > 0) {
    created = await repo.insertSubscribers(tx, newColumns(toCreate));
    createdRows = toCreate;
  }
  for (const row of createdRows) {
    const id = created.get(row.email);
    if (id === undefined) {
      if (foreignKeys.length > 0) tally.reject(`Line ${row.line}: ${row.email} was added by someone else meanwhile; not imported.`);
      continue;
    }
    tally.imported++;
    if (!row.flags.confirmed) {
      tally.unconfirmed++;
      if (!row.invalidEmail) mailable.add(id);
    }
    if (row.flags.blacklisted) blacklistEmails.push(row.email);
    else if (options.listId !== null) toSubscribe.push(id);
    addAttributes(id, row);
    history.ids.push(id);
    history.details.push(
      row.attributeNames.length > 0 ? `Created by import\nattributes set: ${row.attributeNames.join(', ')}` : 'Created by import',
    );
  }

  await repo.updateSubscribers(tx, updates);
  await repo.insertBlacklistEntries(tx, blacklistEmails, options.adminId);
  await repo.upsertAttributeValues(tx, attributes.ids, attributes.definitions, attributes.values);
  if (options.listId !== null) {
    const added = await repo.subscribe(tx, options.listId, toSubscribe);
    if (options.sendConfirmation) for (const id of added) if (mailable.has(id)) tally.mail.push(id);
  }
  const agent = options.origin.userAgent;
  await repo.insertHistory(tx, history.ids, history.details, {
    summary: `Import by ${options.login}`,
    ip: options.origin.ip,
    systemInfo: agent ? `User-Agent: ${agent.slice(0, 255)}` : null,
  });
  if (later.length > 0) await writeBatch(tx, later, options, tally);
}
