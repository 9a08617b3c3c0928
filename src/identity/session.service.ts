import type { AppContext } from '../context.js';
import { ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { findAdministratorByLogin } from './administrator.repository.js';
import { burnPasswordCheck, verifyPassword } from './password.js';
import * as sessions from './session.repository.js';
import { hashSecret, newSecret } from './tokens.js';

/**
 * Logs an administrator in. Any enabled administrator may log in (privileges are checked per request).
 * Failed attempts are counted per login name and per client address, in the database so that every API process
 * shares the count; past the limit the caller is told when to come back.
 */
export async function login(ctx: AppContext, loginName: string, password: string, clientIp: string) {
  const { loginMaxFailures: max, loginFailureWindow: window } = ctx.config;
  const recent = await sessions.countRecentFailures(ctx.db, loginName, clientIp, window);
  if (recent.by_login >= max || recent.by_ip >= max) {
    const oldest = recent.by_login >= max ? recent.oldest_login : recent.oldest_ip;
    const retryAfter = oldest ? (new Date(oldest).getTime() + window * 1000 - Date.now()) / 1000 : window;
    throw new TooManyRequestsError('Too many failed login attempts. Try again later.', retryAfter);
  }

  const admin = await findAdministratorByLogin(ctx.db, loginName);
  const valid = admin ? await verifyPassword(password, admin.passwordHash) : (await burnPasswordCheck(password), false);
  if (!admin || !valid || admin.disabled) {
    await sessions.recordFailure(ctx.db, loginName, clientIp, window);
    ctx.log.info({ event: 'login_failed' }, 'failed administrator login');
    throw new UnauthorizedError('Not authorized');
  }

  await sessions.clearFailuresForLogin(ctx.db, loginName);
  await sessions.deleteExpiredSessions(ctx.db);
  const key = newSecret();
  const expiresAt = new Date(Date.now() + ctx.config.sessionTtl * 1000);
  const row = await sessions.insertSession(ctx.db, admin.id, hashSecret(key), expiresAt);
  return { id: row.id, key, expiry_date: toAtom(row.expiresAt) };
}

/** Logout: only the owner of a session may end it. */
export async function logout(ctx: AppContext, callerId: number, sessionId: number): Promise<void> {
  const session = await sessions.findSession(ctx.db, sessionId);
  if (!session) throw new NotFoundError('Token not found.');
  if (session.administratorId !== callerId) throw new ForbiddenError('You do not have access to this session.');
  await sessions.deleteSession(ctx.db, sessionId);
}
