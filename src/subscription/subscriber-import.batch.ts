import type { Executor } from '../db/client.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';
import { isEmail, type Flag, type ImportRow } from './subscriber-import.columns.js';
import * as repo from './subscriber-import.repository.js';
import { newSubscriberUniqueIds } from './subscriber-unique-id.js';

/*
 * One batch of import rows, written with one statement per table (reference §8.4 row semantics, in bulk).
 */

export interface BatchOptions {
  listId: number | null;
  updateExisting: boolean;
  sendConfirmation: boolean;
  /** Without a `confirmed` column rows count as `confirmed=1` (never an `invalid_` address, which must not be reached). */
  markConfirmed: boolean;
  /** `html_email` of a new subscriber whose row has no `html_email` cell (the form's choice, else the setting). */
  htmlEmail: boolean;
  adminId: number;
  login: string;
  origin: HistoryOrigin;
  /** Queues the confirmation requests of these subscribers in the import's transaction; answers how many. */
  queueConfirmations(tx: Executor, ids: readonly number[]): Promise<number>;
}

/** What the batches add up to. */
export interface BatchTally {
  imported: number;
  /** Subscribers created or updated that are left unconfirmed (campaigns do not reach them). */
  unconfirmed: number;
  /** Confirmation requests queued. */
  confirmationsQueued: number;
  /** A row that wrote nothing, and why (without its line). */
  reject(row: ImportRow, reason: string): void;
  /**
   * A row that reached an existing subscriber: one an earlier row of this file created or updated (`inFile`), or one
   * that was there before; `updated` when the row's values were written (update_existing).
   */
  existing(row: ImportRow, inFile: boolean, updated: boolean): void;
}

/** Each flag (its import column and its field in the existing subscriber), and its name in history lines. */
const FLAG_FIELDS: [Flag, 'confirmed' | 'blacklisted' | 'html_email' | 'disabled'][] = [
  ['confirmed', 'confirmed'],
  ['blacklisted', 'blacklisted'],
  ['htmlEmail', 'html_email'],
  ['disabled', 'disabled'],
];

function newColumns(rows: ImportRow[], htmlEmail: boolean): repo.NewSubscribers {
  return {
    email: rows.map((r) => r.email),
    uniqueId: newSubscriberUniqueIds(rows.length),
    confirmed: rows.map((r) => r.flags.confirmed ?? false),
    blacklisted: rows.map((r) => r.flags.blacklisted ?? false),
    htmlEmail: rows.map((r) => r.flags.htmlEmail ?? htmlEmail),
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
 * Everything one batch writes, gathered row by row and then written with one statement per table: the rows are
 * judged in TypeScript, the database sees a handful of array-parameter statements however large the batch.
 */
interface BatchWrites {
  readonly updates: repo.SubscriberUpdates;
  readonly history: { ids: number[]; details: string[] };
  /** Values of subscribers that were there before (upserted), and of those this batch created (inserted). */
  readonly attributes: repo.AttributeValues;
  readonly newAttributes: repo.AttributeValues;
  /** Subscribers that were there before (some may be on the list already), and those this batch created. */
  readonly toSubscribe: number[];
  readonly newToSubscribe: number[];
  /** Subscribers that stay unconfirmed after this batch and may be mailed when newly subscribed. */
  readonly mailable: Set<number>;
  readonly blacklistEmails: string[];
}

function emptyWrites(): BatchWrites {
  return {
    updates: { id: [], email: [], confirmed: [], blacklisted: [], htmlEmail: [], disabled: [], extraData: [], foreignKey: [] },
    history: { ids: [], details: [] },
    attributes: { ids: [], definitions: [], values: [] },
    newAttributes: { ids: [], definitions: [], values: [] },
    toSubscribe: [],
    newToSubscribe: [],
    mailable: new Set(),
    blacklistEmails: [],
  };
}

/**
 * Writes one batch. Without foreign keys the new rows are inserted first (ON CONFLICT DO NOTHING) and only the
 * rows that were not new are looked up: a fresh import costs no lookup at all. With foreign keys every row is
 * looked up first, since a row matching by key must not be inserted.
 */
export async function writeBatch(tx: Executor, given: ImportRow[], options: BatchOptions, tally: BatchTally): Promise<void> {
  const rows = options.markConfirmed ? given.map(markConfirmed) : given;
  const foreignKeys = rows.flatMap((r) => (r.foreignKey === undefined ? [] : [r.foreignKey]));
  const barred = await repo.blacklistedEmails(
    tx,
    rows.map((r) => r.email),
  );

  let created = new Map<string, number>();
  let createdRows: ImportRow[] = [];
  let pending = rows;
  if (foreignKeys.length === 0) {
    createdRows = rows.filter((r) => !barred.has(r.email));
    created = await repo.insertSubscribers(tx, newColumns(createdRows, options.htmlEmail));
    pending = rows.filter((r) => !created.has(r.email));
  }
  const existing =
    pending.length > 0
      ? await repo.findExisting(
          tx,
          pending.map((r) => r.email),
          foreignKeys,
        )
      : [];
  const targetOf = targetFinder(existing);

  const writes = emptyWrites();
  const toCreate: ImportRow[] = [];
  const targeted = new Set<number>();
  const later: ImportRow[] = [];
  for (const row of pending) {
    const target = targetOf(row);
    if (target === 'conflict') {
      tally.reject(row, 'Conflict: email and foreign key refer to different subscribers.');
      continue;
    }
    if (!target) {
      if (barred.has(row.email)) tally.reject(row, `${row.email} is blacklisted; not imported.`);
      else if (foreignKeys.length > 0) toCreate.push(row);
      // Inserted by nobody and found nowhere: another writer took the address and dropped it again meanwhile.
      else tally.reject(row, `${row.email} changed while importing; not imported.`);
      continue;
    }
    // Two rows reaching one subscriber (one by address, one by foreign key): the second waits for the next round.
    if (targeted.has(target.id)) {
      later.push(row);
      continue;
    }
    targeted.add(target.id);
    planExisting(row, target, barred, options, writes, tally);
  }

  if (toCreate.length > 0) {
    created = await repo.insertSubscribers(tx, newColumns(toCreate, options.htmlEmail));
    createdRows = toCreate;
  }
  planCreated(createdRows, created, foreignKeys.length > 0, options, writes, tally);
  await writePlanned(tx, writes, options, tally);
  if (later.length > 0) await writeBatch(tx, later, options, tally);
}

/**
 * The existing subscriber a row reaches: by foreign key first, else by address; 'conflict' when its address and its
 * foreign key name two different subscribers (the row is rejected).
 */
function targetFinder(existing: repo.ExistingSubscriber[]): (row: ImportRow) => repo.ExistingSubscriber | 'conflict' | undefined {
  const byEmail = new Map(existing.map((s) => [s.email.toLowerCase(), s]));
  const byForeignKey = new Map(existing.filter((s) => s.foreignKey !== null).map((s) => [s.foreignKey!, s]));
  return (row) => {
    const sameEmail = byEmail.get(row.email);
    const sameKey = row.foreignKey !== undefined ? byForeignKey.get(row.foreignKey) : undefined;
    if (sameEmail && sameKey && sameEmail.id !== sameKey.id) return 'conflict';
    return sameKey ?? sameEmail;
  };
}

/**
 * A row that reached an existing subscriber: subscribed to the list unless the subscriber is or becomes blacklisted;
 * then either skipped silently (no `update_existing`) or its changes queued with one history entry naming each.
 */
function planExisting(
  row: ImportRow,
  target: repo.ExistingSubscriber,
  barred: Set<string>,
  options: BatchOptions,
  writes: BatchWrites,
  tally: BatchTally,
): void {
  const blocked = target.blacklisted || barred.has(target.email.toLowerCase()) || barred.has(row.email) || row.flags.blacklisted === true;
  if (options.listId !== null && !blocked) writes.toSubscribe.push(target.id);
  if (!options.updateExisting) {
    // Its stored address, unchanged by this row, may be one that must not be reached (`invalid_…`).
    if (!target.confirmed && isEmail(target.email)) writes.mailable.add(target.id);
    tally.existing(row, target.touchedByImport, false);
    return;
  }
  const { emailChanged, flags, lines } = changesTo(target, row);
  const { updates } = writes;
  updates.id.push(target.id);
  updates.email.push(emailChanged ? row.email : null);
  updates.confirmed.push(flags.confirmed);
  updates.blacklisted.push(flags.blacklisted);
  updates.htmlEmail.push(flags.htmlEmail);
  updates.disabled.push(flags.disabled);
  updates.extraData.push(row.extraData ?? null);
  updates.foreignKey.push(row.foreignKey ?? null);
  if (!(flags.confirmed ?? target.confirmed)) {
    tally.unconfirmed++;
    if (!row.invalidEmail) writes.mailable.add(target.id);
  }
  if (flags.blacklisted && !target.blacklisted) writes.blacklistEmails.push(row.email);
  addAttributes(writes.attributes, target.id, row);
  writes.history.ids.push(target.id);
  writes.history.details.push(lines.length > 0 ? lines.join('\n') : 'No user details changed');
  tally.existing(row, target.touchedByImport, true);
}

/**
 * What a row changes on the subscriber it reached: the flags to set (null: the row does not say, the stored value
 * stays) and the history lines: `field = new *changed* from old` for a flag; the address, extra data and foreign
 * key are named without their values.
 */
function changesTo(target: repo.ExistingSubscriber, row: ImportRow): { emailChanged: boolean; flags: Record<Flag, boolean | null>; lines: string[] } {
  const lines: string[] = [];
  const emailChanged = row.email !== target.email.toLowerCase();
  if (emailChanged) lines.push('email *changed*');
  const [confirmed, blacklisted, htmlEmail, disabled] = FLAG_FIELDS.map(([flag, field]) => {
    let value = row.flags[flag];
    if (value === undefined) return null;
    if (flag === 'blacklisted' && !value) value = target.blacklisted; // an import never lifts a blacklisting
    if (value !== target[flag]) lines.push(`${field} = ${String(value)} *changed* from ${String(target[flag])}`);
    return value;
  });
  if (row.extraData !== undefined && row.extraData !== (target.extraData ?? '')) lines.push('extra_data *changed*');
  if (row.foreignKey !== undefined && row.foreignKey !== target.foreignKey) lines.push('foreign_key *changed*');
  if (row.attributeNames.length > 0) lines.push(`attributes set: ${row.attributeNames.join(', ')}`);
  return {
    emailChanged,
    flags: { confirmed: confirmed ?? null, blacklisted: blacklisted ?? null, htmlEmail: htmlEmail ?? null, disabled: disabled ?? null },
    lines,
  };
}

/**
 * The rows inserted as new subscribers: counted, subscribed unless blacklisted, their attributes and a history
 * entry queued. A row whose address someone else inserted between the lookup and the insert was looked up first
 * (`lookedUpFirst`) and is rejected; on the insert-first path it was already handled as an existing subscriber.
 */
function planCreated(
  rows: ImportRow[],
  created: Map<string, number>,
  lookedUpFirst: boolean,
  options: BatchOptions,
  writes: BatchWrites,
  tally: BatchTally,
): void {
  for (const row of rows) {
    const id = created.get(row.email);
    if (id === undefined) {
      if (lookedUpFirst) tally.reject(row, `${row.email} was added by someone else meanwhile; not imported.`);
      continue;
    }
    tally.imported++;
    if (!row.flags.confirmed) {
      tally.unconfirmed++;
      if (!row.invalidEmail) writes.mailable.add(id);
    }
    if (row.flags.blacklisted) writes.blacklistEmails.push(row.email);
    else if (options.listId !== null) writes.newToSubscribe.push(id);
    addAttributes(writes.newAttributes, id, row);
    writes.history.ids.push(id);
    writes.history.details.push(
      row.attributeNames.length > 0 ? `Created by import\nattributes set: ${row.attributeNames.join(', ')}` : 'Created by import',
    );
  }
}

function addAttributes(into: repo.AttributeValues, id: number, row: ImportRow): void {
  for (const a of row.attributes) {
    into.ids.push(id);
    into.definitions.push(a.definitionId);
    into.values.push(a.value);
  }
}

/**
 * One statement per table, and per kind of subscriber: the rows of subscribers this batch created are plain inserts,
 * since nothing can name a subscriber before this transaction commits, and an insert that need not look for a
 * conflict first costs a third less (issue 24: a 1,000,000-row import's 2,000,000 attribute values took 8.7 s, not 12.5);
 * those of subscribers that were there before are upserts. `subscribe` answers only the subscriptions it created,
 * so a confirmation request goes to subscribers newly on the list (and left unconfirmed), never again to one
 * already on it.
 */
async function writePlanned(tx: Executor, writes: BatchWrites, options: BatchOptions, tally: BatchTally): Promise<void> {
  await repo.updateSubscribers(tx, writes.updates);
  await repo.insertBlacklistEntries(tx, writes.blacklistEmails, options.adminId);
  await repo.writeAttributeValues(tx, writes.attributes, false);
  await repo.writeAttributeValues(tx, writes.newAttributes, true);
  if (options.listId !== null) {
    await repo.subscribeNew(tx, options.listId, writes.newToSubscribe);
    const added = [...writes.newToSubscribe, ...(await repo.subscribe(tx, options.listId, writes.toSubscribe))];
    // One insert per batch (by reference, nothing rendered), in the import's transaction: the mails exist exactly
    // when the import does.
    if (options.sendConfirmation)
      tally.confirmationsQueued += await options.queueConfirmations(
        tx,
        added.filter((id) => writes.mailable.has(id)),
      );
  }
  const agent = options.origin.userAgent;
  await repo.insertHistory(tx, writes.history.ids, writes.history.details, {
    summary: `Import by ${options.login}`,
    ip: options.origin.ip,
    systemInfo: agent ? `User-Agent: ${agent.slice(0, 255)}` : null,
  });
}
