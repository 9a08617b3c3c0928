import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { bool, int, text, timestamp, timestampOrNull, type Row } from '../db/row.js';

/** How long a claimed refresh may run before another request may take it over (its process died). */
const REFRESH_TIMEOUT = '5 minutes';

export interface DomainSnapshotState {
  computedAt: Date | null;
  /** Whether the figures, if any, still say what the campaign's records say closely enough (see `freshness`). */
  fresh: boolean;
}

export interface DomainFigures {
  domain: string;
  recipients: number;
  sent: number;
  failed: number;
  opened: number;
  clicked: number;
  bounced: number;
}

/**
 * The campaign's snapshot: when it was computed and whether that is recent enough. Fresh: computed within
 * `maxAgeMinutes`, or the campaign is sent and the snapshot was taken more than `settledDays` after it was (nothing
 * much changes any more, so it never needs computing again). Undefined: no such campaign.
 */
export async function domainSnapshotState(
  db: Executor,
  campaignId: number,
  maxAgeMinutes: number,
  settledDays: number,
): Promise<DomainSnapshotState | undefined> {
  const [state] = await queryRows(
    db,
    sql`select s.computed_at,
               coalesce(s.computed_at > now() - make_interval(mins => ${maxAgeMinutes}::int)
                 or (c.status = 'sent' and c.sent_at is not null
                     and s.computed_at > c.sent_at + make_interval(days => ${settledDays}::int)), false) as fresh
        from campaigns c left join campaign_domain_snapshots s on s.campaign_id = c.id
        where c.id = ${campaignId}`,
    (row) => ({ computedAt: timestampOrNull(row, 'computed_at'), fresh: bool(row, 'fresh') }),
  );
  return state;
}

/** The campaign's largest domains by recipients (then by name), as of its snapshot. */
export async function domainFigures(db: Executor, campaignId: number, limit: number): Promise<DomainFigures[]> {
  return queryRows(
    db,
    sql`select domain, recipients, sent, failed, opened, clicked, bounced from campaign_domain_stats
        where campaign_id = ${campaignId} order by recipients desc, domain limit ${limit}`,
    toFigures,
  );
}

function toFigures(row: Row): DomainFigures {
  return {
    domain: text(row, 'domain'),
    recipients: int(row, 'recipients'),
    sent: int(row, 'sent'),
    failed: int(row, 'failed'),
    opened: int(row, 'opened'),
    clicked: int(row, 'clicked'),
    bounced: int(row, 'bounced'),
  };
}

/**
 * Claims the campaign's refresh: true for one caller only, among requests and processes, until the refresh ends or
 * has run longer than REFRESH_TIMEOUT. The row's lock serialises concurrent claims; the loser's WHERE then sees the
 * winner's `refreshing_since` and the update does nothing.
 */
export async function claimDomainRefresh(db: Executor, campaignId: number): Promise<boolean> {
  const claimed = await queryRows(
    db,
    sql`insert into campaign_domain_snapshots as s (campaign_id, refreshing_since) values (${campaignId}, now())
        on conflict (campaign_id) do update set refreshing_since = now()
          where s.refreshing_since is null or s.refreshing_since < now() - ${REFRESH_TIMEOUT}::interval
        returning s.refreshing_since`,
    (row) => timestamp(row, 'refreshing_since'),
  );
  return claimed.length === 1;
}

/**
 * Recomputes the campaign's domain figures from its delivery records in one grouped statement, replacing the
 * previous ones in the same transaction (readers see the old figures until it commits), and ends the claim.
 * Bounced: recipients with a bounce matched to this campaign. The domain is read as the subscriber rollups read it
 * (routines/013_subscriber_rollups.sql), so both tables name a domain alike.
 */
export async function refreshDomainFigures(db: Executor, campaignId: number): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`delete from campaign_domain_stats where campaign_id = ${campaignId}`);
    await tx.execute(sql`insert into campaign_domain_stats (campaign_id, domain, recipients, sent, failed, opened, clicked, bounced)
      ${domainFiguresQuery(campaignId)}`);
    await tx.execute(sql`update campaign_domain_snapshots set computed_at = now(), refreshing_since = null where campaign_id = ${campaignId}`);
  });
}

/** The refresh's grouped SELECT (also what the bench times with EXPLAIN ANALYZE). */
export function domainFiguresQuery(campaignId: number) {
  return sql`select ${campaignId}::int, lower(split_part(s.email, '@', 2)) as domain, count(*),
      count(*) filter (where d.status = 'sent'), count(*) filter (where d.status = 'failed'),
      count(d.first_human_opened_at), count(d.first_clicked_at), count(b.subscriber_id)
    from deliveries d
      join subscribers s on s.id = d.subscriber_id
      left join (select distinct subscriber_id from bounces where campaign_id = ${campaignId}) b on b.subscriber_id = d.subscriber_id
    where d.campaign_id = ${campaignId}
    group by 2`;
}

/** Ends a refresh that failed, so that the next request may try again at once. */
export async function releaseDomainRefresh(db: Executor, campaignId: number): Promise<void> {
  await db.execute(sql`update campaign_domain_snapshots set refreshing_since = null where campaign_id = ${campaignId}`);
}
