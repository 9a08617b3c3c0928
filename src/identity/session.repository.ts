import { and, eq, lt, ne, sql } from 'drizzle-orm';
import { queryRows, type AppDb, type Executor } from '../db/client.js';
import { bool, int, intOrNull, num, type Row } from '../db/row.js';
import { loginFailures, loginKnownClients, sessions } from '../db/schema/index.js';

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
  const [session] = await database.prepared(
    'live_session',
    `select s.id as session_id, a.id as admin_id, a.super_user,
       a.priv_subscribers, a.priv_campaigns, a.priv_statistics, a.priv_settings
     from sessions s join administrators a on a.id = s.administrator_id
     where s.key_hash = $1 and s.expires_at > now() and not a.disabled`,
    [keyHash],
    toLiveSession,
  );
  return session;
}

const toLiveSession = (row: Row): LiveSession => ({
  sessionId: int(row, 'session_id'),
  adminId: int(row, 'admin_id'),
  superUser: bool(row, 'super_user'),
  privSubscribers: bool(row, 'priv_subscribers'),
  privCampaigns: bool(row, 'priv_campaigns'),
  privStatistics: bool(row, 'priv_statistics'),
  privSettings: bool(row, 'priv_settings'),
});

export async function findSession(db: Executor, id: number) {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, id));
  return row;
}

export async function deleteSession(db: Executor, id: number): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, id));
}

/** Ends an administrator's sessions, all of them or all but `keepSessionId`. */
export async function deleteSessionsOf(db: Executor, administratorId: number, keepSessionId?: number): Promise<void> {
  const ofAdministrator = eq(sessions.administratorId, administratorId);
  await db.delete(sessions).where(keepSessionId === undefined ? ofAdministrator : and(ofAdministrator, ne(sessions.id, keepSessionId)));
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
  const [taken] = await queryRows(
    db,
    sql`select * from login_attempt_take(${loginName}, ${clientIp}, ${windowSeconds}::int, ${max}::int)`,
    (row) => ({ attempt: intOrNull(row, 'r_attempt'), retryAfter: row.r_retry_after === null ? windowSeconds : num(row, 'r_retry_after') }),
  );
  return taken!;
}

/**
 * After a right password: the attempt was no failure, and neither were this address's earlier ones for this name;
 * and the address is one this administrator uses (the throttle spares it the login's own budget).
 */
export async function clearFailures(db: Executor, attempt: number, administratorId: number, loginName: string, clientIp: string) {
  await db
    .delete(loginFailures)
    .where(
      sql`${loginFailures.id} = ${attempt} or (lower(${loginFailures.loginName}) = lower(${loginName}) and ${loginFailures.clientIp} = ${clientIp})`,
    );
  await db
    .insert(loginKnownClients)
    .values({ administratorId, clientIp })
    .onConflictDoUpdate({ target: [loginKnownClients.administratorId, loginKnownClients.clientIp], set: { lastSuccessAt: sql`now()` } });
  // The routine looks 180 days back; older rows are of no use (a small table: administrators × their addresses).
  await db.delete(loginKnownClients).where(lt(loginKnownClients.lastSuccessAt, sql`now() - interval '180 days'`));
}
