import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { num } from '../db/row.js';

/*
 * Who may be mailed a campaign, of the subscribers aliased `s`: confirmed, not blacklisted, not disabled
 * (SENDABLE_FLAGS, the predicate of the partial index subscribers_sendable_idx), and whose address is not in the
 * blacklist table. The freeze, a campaign's audience count and a segment's count of who can be mailed use these
 * fragments, so they cannot disagree.
 */
export const SENDABLE_FLAGS = sql`s.confirmed and not s.blacklisted and not s.disabled`;
export const ADDRESS_NOT_BLACKLISTED = sql`not exists (select 1 from blacklist b where lower(b.email) = lower(s.email))`;

/**
 * The consent rule's part for a segment that is the whole audience (docs/api.md "Consent"): only subscribers who
 * hold at least one list membership. Leaving every list (the unsubscribe link of such a campaign does that) takes a
 * person out of every segment-alone campaign; someone on no list gets no campaign. Probes subscriptions_subscriber_id_idx.
 */
export const ON_SOME_LIST = sql`exists (select 1 from subscriptions m where m.subscriber_id = s.id)`;

/**
 * How many of the subscribers `member` selects (a predicate over `s`) may be mailed. Those with the right flags are
 * counted from subscribers_sendable_idx, and those whose address is in the blacklist table are subtracted by
 * probing the address index once per blacklist entry, instead of lower-casing every member's address.
 */
export async function countSendable(db: Executor, member: SQL): Promise<number> {
  const [n] = await queryRows(
    db,
    sql`select (select count(*) from subscribers s where ${SENDABLE_FLAGS} and ${member})::float8
             - (${blacklistedWithFlags(member)})::float8 as n`,
    (row) => num(row, 'n'),
  );
  return n ?? 0;
}

/** Of the subscribers `member` selects with SENDABLE_FLAGS, those whose address is in the blacklist table. */
const blacklistedWithFlags = (member: SQL) =>
  sql`select count(*) from blacklist b join subscribers s on lower(s.email) = lower(b.email) where ${SENDABLE_FLAGS} and ${member}`;

/**
 * countSendable's second half alone: of those `member` selects with SENDABLE_FLAGS, how many have an address in the
 * blacklist table. For a count that has the first half already (a segment's count of who can be mailed).
 */
export async function countBlacklistedWithFlags(db: Executor, member: SQL): Promise<number> {
  const [n] = await queryRows(db, sql`select (${blacklistedWithFlags(member)})::float8 as n`, (row) => num(row, 'n'));
  return n ?? 0;
}
