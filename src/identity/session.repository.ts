import { eq, lt, sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../db/client.js';
import { loginFailures, sessions } from '../db/schema/index.js';

export async function insertSession(db: Executor, administratorId: number, keyHash: string, expiresAt: Date) {
  const [row] = await db.insert(sessions).values({ administratorId, keyHash, expiresAt }).returning();
  return row!;
}

/** What every authenticated request needs to know about its caller. */
export interface LiveSession {
  sessionId: number;
  adminId: number;
  superUser: boolean;
  privSubscribers: boolean;
  privCampaigns: boolean;
  privStatistics: boolean;
  privSettings: boolean;
}

/**
 * The live session for a key hash and its administrator's rights, if the session is unexpired and the admin enabled.
 * Every authenticated request runs it, so it is a prepared statement returning only what authorisation reads.
 */
export async function findLiveSession(database: Database, keyHash: string): Promise<LiveSession | undefined> {
  const [row] = await database.prepared<LiveSession>(
    'live_session',
    `select s.id as "sessionId", a.id as "adminId", a.super_user as "superUser",
       a.priv_subscribers as "privSubscribers", a.priv_campaigns as "privCampaigns",
       a.priv_statistics as "privStatistics", a.priv_settings as "privSettings"
     from sessions s join administrators a on a.id = s.administrator_id
     where s.key_hash = $1 and s.expires_at > now() and not a.disabled`,
    [keyHash],
  );
  return row;
}

export async function findSession(db: Executor, id: number) {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, id));
  return row;
}

export async function deleteSession(db: Executor, id: number): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, id));
}

/** Expired sessions are useless; they are removed as new ones are made, so the table stays small. */
export async function deleteExpiredSessions(db: Executor): Promise<void> {
  await db.delete(sessions).where(lt(sessions.expiresAt, sql`now() - interval '1 day'`));
}

/** Failures in the window for this login name and for this client address, and the oldest of each. */
export async function countRecentFailures(db: Executor, loginName: string, clientIp: string, windowSeconds: number) {
  const [row] = await queryRows<{ by_login: number; by_ip: number; oldest_login: string | null; oldest_ip: string | null }>(db, sql`
    select
      count(*) filter (where lower(login_name) = lower(${loginName}))::int as by_login,
      count(*) filter (where client_ip = ${clientIp})::int as by_ip,
      min(created_at) filter (where lower(login_name) = lower(${loginName}))::text as oldest_login,
      min(created_at) filter (where client_ip = ${clientIp})::text as oldest_ip
    from ${loginFailures}
    where created_at > now() - make_interval(secs => ${windowSeconds})
      and (lower(login_name) = lower(${loginName}) or client_ip = ${clientIp})`);
  return row!;
}

export async function recordFailure(db: Executor, loginName: string, clientIp: string, windowSeconds: number) {
  await db.insert(loginFailures).values({ loginName, clientIp });
  await db.delete(loginFailures).where(lt(loginFailures.createdAt, sql`now() - make_interval(secs => ${windowSeconds})`));
}

export async function clearFailuresForLogin(db: Executor, loginName: string) {
  await db.delete(loginFailures).where(sql`lower(${loginFailures.loginName}) = lower(${loginName})`);
}
