import { eq, lt, sql } from 'drizzle-orm';
import { queryRows, type AppDb, type Executor } from '../db/client.js';
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
export async function findLiveSession(database: AppDb, keyHash: string): Promise<LiveSession | undefined> {
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

/**
 * Takes a login attempt's place among the window's failures before its password is checked (routine
 * 045_login_attempt.sql, which says who is refused): `attempt` is the row to delete when the password was right,
 * null when refused, with the seconds until the oldest counted failure leaves the window.
 */
export async function takeLoginAttempt(db: Executor, loginName: string, clientIp: string, windowSeconds: number, max: number) {
  const [row] = await queryRows<{ r_attempt: string | number | null; r_retry_after: number | null }>(
    db,
    sql`select * from login_attempt_take(${loginName}, ${clientIp}, ${windowSeconds}::int, ${max}::int)`,
  );
  return { attempt: row!.r_attempt === null ? null : Number(row!.r_attempt), retryAfter: row!.r_retry_after ?? windowSeconds };
}

/** After a right password: the attempt was no failure, and neither were this address's earlier ones for this name. */
export async function clearFailures(db: Executor, attempt: number, loginName: string, clientIp: string) {
  await db
    .delete(loginFailures)
    .where(sql`${loginFailures.id} = ${attempt} or (lower(${loginFailures.loginName}) = lower(${loginName}) and ${loginFailures.clientIp} = ${clientIp})`);
}
