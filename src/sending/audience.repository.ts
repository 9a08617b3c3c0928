import { sql, type SQL } from 'drizzle-orm';
import { queryRows, sqlArray, type Executor } from '../db/client.js';
import { bool, int, intOrNull, num, text, type Row } from '../db/row.js';
import { ADDRESS_NOT_BLACKLISTED, countSendable, LEAVE_LOCK, ON_SOME_LIST, SENDABLE_FLAGS } from '../subscription/index.js';

/*
 * Freezing a campaign's audience into delivery records, in the background: what is to be frozen
 * (campaign_audience_sources), which campaigns have freezing to do, and the chunk statement itself.
 */

/** Namespace of the transaction-level advisory lock held by the one worker freezing a campaign's next chunk. */
const FREEZE_LOCK = 7391;

/*
 * Marking lists to be frozen: a list not marked yet, or whose last pass is done, gets a pass from the first
 * subscriber; a list whose pass is still pending (suspended mid-freeze, say) keeps its place, so resuming continues.
 */
const MARK = sql`on conflict (campaign_id, list_id) do update
  set frozen_through_subscriber_id = case when campaign_audience_sources.frozen_at is null
                                          then campaign_audience_sources.frozen_through_subscriber_id else 0 end,
      frozen_at = null`;

/**
 * Who gets a record of a campaign, of the subscribers aliased `s`: subscription's rule (sendable.repository.ts), which
 * the audience count and a segment's count of who can be mailed use too, so they cannot disagree.
 */
const SENDABLE = sql`${SENDABLE_FLAGS} and ${ADDRESS_NOT_BLACKLISTED}`;

/** A count computed as float8 (a sum of bigints may pass 2^31), read as a number. */
const toCount = (row: Row): number => num(row, 'n');

/** The lists a campaign is linked to (list_campaigns). */
export async function campaignListIds(db: Executor, campaignId: number): Promise<number[]> {
  return queryRows(db, sql`select list_id from list_campaigns where campaign_id = ${campaignId} order by list_id`, (row) => int(row, 'list_id'));
}

/** Who a send would go to now, and how many of them have asked for plain-text mail. */
export interface AudienceFigures {
  readonly count: number;
  /** Of `count`, subscribers whose html_email is false: an HTML campaign reaches them as its text part only. */
  readonly textOnly: number;
}

/**
 * How many subscribers a send to these lists would freeze now: distinct SENDABLE members (and, with `textOnly`, how
 * many of them take plain text only). One list without a segment (the usual send) is read from the per-list counters,
 * a few rows at any size. Otherwise it is counted, shaped for a million: the members with the right flags are counted
 * by merging the lists' memberships with subscribers_sendable_idx, both read in subscriber order from indexes alone
 * (one list: its primary-key range; several: the subscriber index, each subscriber once), and those whose address is
 * in the blacklist table are subtracted (subscription's countSendable). About a second at a million on a busy
 * PostgreSQL (more with a long blacklist) where a hash join took several. The plain-text figure has no counter: it is
 * counted the same way, only when asked for (an HTML campaign's confirmation), through the partial index of sendable
 * text-only subscribers (subscribers_sendable_text_only_idx): as many index entries as there are such subscribers.
 */
export async function audienceCount(
  db: Executor,
  listIds: readonly number[],
  segment: { readonly predicate: SQL; readonly narrowsLists: boolean } | null = null,
  options: { textOnly?: boolean } = {},
): Promise<AudienceFigures> {
  let member: SQL;
  if (segment && !segment.narrowsLists) {
    // A segment without lists is the audience itself (src/segments/campaign-segment.ts), among those on some list.
    member = sql`${segment.predicate} and ${ON_SOME_LIST}`;
  } else {
    if (listIds.length === 0) return { count: 0, textOnly: 0 };
    const onLists =
      listIds.length === 1
        ? sql`exists (select 1 from subscriptions m where m.list_id = ${listIds[0]} and m.subscriber_id = s.id)`
        : sql`exists (select 1 from subscriptions m where m.subscriber_id = s.id and m.list_id = any(${sqlArray(listIds, 'int')}))`;
    member = segment ? sql`${onLists} and ${segment.predicate}` : onLists;
  }
  const count = !segment && listIds.length === 1 ? await listSendableCount(db, listIds[0]!) : await countSendable(db, member);
  const textOnly = options.textOnly && count > 0 ? await countSendable(db, sql`${member} and not s.html_email`) : 0;
  return { count, textOnly };
}

/**
 * One list's sendable members from the counters the triggers keep (routines/014_list_sendable_counts.sql, by the
 * same rule as SENDABLE): up to 16 rows, however big the list. Several lists need the distinct count below, since a
 * subscriber on two of them gets one message.
 */
async function listSendableCount(db: Executor, listId: number): Promise<number> {
  const [n] = await queryRows(db, sql`select coalesce(sum(members), 0)::float8 as n from list_sendable_counts where list_id = ${listId}`, toCount);
  return n ?? 0;
}

/** Marks the campaign's own lists (list_campaigns) to be frozen: one small statement, whatever their size. */
export async function markCampaignLists(tx: Executor, campaignId: number): Promise<void> {
  await tx.execute(
    sql`insert into campaign_audience_sources (campaign_id, list_id)
        select campaign_id, list_id from list_campaigns where campaign_id = ${campaignId}
        ${MARK}`,
  );
}

/** Marks further lists (a resend) to be frozen into the campaign's audience; ids that are not lists are ignored. */
export async function markLists(tx: Executor, campaignId: number, listIds: readonly number[]): Promise<void> {
  if (listIds.length === 0) return;
  await tx.execute(
    sql`insert into campaign_audience_sources (campaign_id, list_id)
        select ${campaignId}, l.id from lists l where l.id = any(${sqlArray(listIds, 'int')})
        ${MARK}`,
  );
}

/** Whether any list of the campaign is still to be frozen. */
export async function hasPendingSources(db: Executor, campaignId: number): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`select 1 as one from campaign_audience_sources where campaign_id = ${campaignId} and frozen_at is null
        union all
        select 1 from campaign_segments where campaign_id = ${campaignId} and frozen_at is null
        limit 1`,
    (row) => int(row, 'one'),
  );
  return rows.length > 0;
}

/**
 * Campaigns the freezer has work on, oldest embargo first: `prepared` ones whose embargo has come (their audience is
 * being frozen; with nothing left they go on to `inprocess`), and `inprocess` ones with lists still to freeze (a
 * resend while sending).
 */
export async function freezeCandidates(db: Executor, limit = 100): Promise<number[]> {
  return queryRows(
    db,
    sql`select id from (
          select id, embargo from campaigns where status = 'prepared' and embargo <= now()
          union
          select c.id, c.embargo from campaigns c
          where c.status = 'inprocess'
            and (exists (select 1 from campaign_audience_sources a where a.campaign_id = c.id and a.frozen_at is null)
                 or exists (select 1 from campaign_segments g where g.campaign_id = c.id and g.frozen_at is null))
        ) due
        order by embargo, id
        limit ${limit}`,
    (row) => int(row, 'id'),
  );
}

/**
 * Takes the campaign's freeze lock for the rest of the transaction, without waiting: false when another worker is
 * freezing a chunk of it right now. An advisory lock rather than a row lock: the campaign row and its send state
 * are locked by status changes and by every batch's outcomes, and waiting on them here could deadlock with those.
 * First, in the same round trip, the leave lock shared (subscription's leave.repository.ts): a subscriber leaving
 * lists waits for the chunks under way and holds the next ones off until it has committed, so no chunk queues mail
 * for someone whose leave it did not see.
 */
export async function tryFreezeLock(tx: Executor, campaignId: number): Promise<boolean> {
  const [locked] = await queryRows(
    tx,
    sql`select pg_try_advisory_xact_lock(${FREEZE_LOCK}, ${campaignId}) as locked
        from (select pg_advisory_xact_lock_shared(${LEAVE_LOCK}, 0)) leaves`,
    (row) => bool(row, 'locked'),
  );
  return locked === true;
}

/**
 * The campaign's status, with a KEY SHARE lock held until the chunk commits: a status change (suspend, say) waits
 * for the chunk under way instead of interleaving with it, and the chunk's records' parent check needs this lock
 * anyway.
 */
export async function statusForFreeze(tx: Executor, campaignId: number): Promise<string | null> {
  const [status] = await queryRows(tx, sql`select status from campaigns where id = ${campaignId} for key share`, (row) => text(row, 'status'));
  return status ?? null;
}

export interface PendingSource {
  /** The list whose members are walked, or null for a segment's walk over every subscriber (src/segments/). */
  readonly listId: number | null;
  readonly after: number;
}

/**
 * What to freeze next and where its pass stands: the lists in the order they were marked, then the campaign's
 * segment when the segment is the audience itself (campaign_segments, not narrowing lists).
 */
export async function nextSource(tx: Executor, campaignId: number): Promise<PendingSource | null> {
  const [source] = await queryRows(
    tx,
    sql`(select list_id, frozen_through_subscriber_id as after from campaign_audience_sources
         where campaign_id = ${campaignId} and frozen_at is null
         order by added_at, list_id limit 1)
        union all
        (select null, frozen_through_subscriber_id from campaign_segments where campaign_id = ${campaignId} and frozen_at is null)
        limit 1`,
    (row): PendingSource => ({ listId: intOrNull(row, 'list_id'), after: int(row, 'after') }),
  );
  return source ?? null;
}

export interface Chunk {
  /** Members of the list looked at (at most the chunk size). */
  readonly scanned: number;
  /** Records added (members already holding one, or not to be mailed, add none). */
  readonly added: number;
  /** The list's pass is done. */
  readonly finished: boolean;
  /** …and it was the campaign's last list to freeze. */
  readonly allDone: boolean;
}

/**
 * One chunk of a list's pass, in one statement: the next `size` members by subscriber id (a range of the
 * subscriptions primary key), of whom those confirmed, not blacklisted, not disabled and whose address is not in
 * the blacklist table get a record unless they have one (ON CONFLICT: a subscriber on several lists, a chunk run
 * again after a worker died, a resend). The campaign's queued counter and the list's progress move in the same
 * statement, so they cannot drift from the records. Records are inserted in subscriber order, so a campaign goes
 * out in a stable order. (The campaign row is not written here: see stampFrozen.)
 */
export async function freezeChunk(tx: Executor, campaignId: number, source: PendingSource, size: number, segment: SQL | null = null): Promise<Chunk> {
  const walk =
    source.listId === null
      ? // The segment is the audience: subscribers by id, those it matches.
        sql`select s.id from subscribers s where s.id > ${source.after} and ${segment ?? sql`false`} order by s.id limit ${size}`
      : sql`select m.subscriber_id as id from subscriptions m
            where m.list_id = ${source.listId} and m.subscriber_id > ${source.after}
            order by m.subscriber_id
            limit ${size}`;
  // A segment narrowing the lists lets through only the members it matches; a segment that is the whole audience,
  // only those of its matches who are on some list (the consent rule, docs/api.md "Consent").
  const narrowed = source.listId === null ? sql`and ${ON_SOME_LIST}` : segment ? sql`and ${segment}` : sql``;
  const progress =
    source.listId === null
      ? sql`update campaign_segments g
            set frozen_through_subscriber_id = coalesce(span.last, g.frozen_through_subscriber_id),
                frozen_at = case when span.scanned < ${size} then now() end, updated_at = now()
            from span
            where g.campaign_id = ${campaignId}`
      : sql`update campaign_audience_sources a
            set frozen_through_subscriber_id = coalesce(span.last, a.frozen_through_subscriber_id),
                frozen_at = case when span.scanned < ${size} then now() end
            from span
            where a.campaign_id = ${campaignId} and a.list_id = ${source.listId}`;
  const otherLists = source.listId === null ? sql`true` : sql`o.list_id <> ${source.listId}`;
  const otherSegment =
    source.listId === null ? sql`false` : sql`exists (select 1 from campaign_segments g where g.campaign_id = ${campaignId} and g.frozen_at is null)`;
  const [chunk] = await queryRows(
    tx,
    sql`with chunk as (${walk}),
        span as (select count(*)::int as scanned, max(id) as last from chunk),
        inserted as (
          insert into deliveries (campaign_id, subscriber_id)
          select ${campaignId}, s.id
          from subscribers s
          -- An array, not a join: the planner then probes the primary key once per member. Joined, it hashed the
          -- chunk and scanned the whole subscribers table for every chunk (a million-row scan per 50,000).
          where s.id = any(array(select id from chunk))
            and ${SENDABLE}
            ${narrowed}
          order by s.id
          on conflict (campaign_id, subscriber_id) do nothing
          returning 1
        ),
        counted as (
          insert into campaign_counters (campaign_id, queued)
          select ${campaignId}, count(*) from inserted
          on conflict (campaign_id) do update
            set queued = campaign_counters.queued + excluded.queued, updated_at = now()
        ),
        progress as (${progress}),
        others as (
          select exists (select 1 from campaign_audience_sources o
                         where o.campaign_id = ${campaignId} and ${otherLists} and o.frozen_at is null)
                 or ${otherSegment} as pending
        )
        -- Data-modifying CTEs run to completion whether or not the final select reads them.
        select span.scanned, (select count(*)::int from inserted) as added, span.scanned < ${size} as finished,
               span.scanned < ${size} and not others.pending as all_done
        from span, others`,
    (row): Chunk => ({ scanned: int(row, 'scanned'), added: int(row, 'added'), finished: bool(row, 'finished'), allDone: bool(row, 'all_done') }),
  );
  return chunk!;
}

/**
 * `audience_frozen_at`: when the campaign's last pending list was done. Its own statement after the chunk has
 * committed, because the chunk holds a KEY SHARE lock on the campaign row that a waiting status change queues behind.
 */
export async function stampFrozen(db: Executor, campaignId: number): Promise<void> {
  // updated_at is left alone: it marks content changes (workers recompile when it moves).
  await db.execute(sql`update campaigns set audience_frozen_at = now() where id = ${campaignId}`);
}
