import type { AppContext } from '../context.js';
import { ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError } from '../shared/errors.js';
import { clientKey } from '../shared/client-address.js';
import { toAtom } from '../shared/time.js';
import { findAdministratorByLogin } from './administrator.repository.js';
import { burnPasswordCheck, verifyPassword } from './password.js';
import * as sessions from './session.repository.js';
import { hashSecret, newSecret } from './tokens.js';

/**
 * Logs an administrator in. Any enabled administrator may log in (privileges are checked per request).
 * Failed attempts are counted per client address (an IPv6 one by its /64) and per login name, in the database so
 * that every API process shares the count. Each attempt is counted as a failure *before* its password is checked,
 * atomically (routine 045_login_attempt.sql, which says who is refused), so parallel guesses cannot all slip under
 * the limit; a right password takes it back and marks the address as one the administrator uses. Every other address
 * spends from the login's own budget, so new addresses buy no extra guesses; an address the administrator uses is
 * refused only for its own failures, so someone failing on purpose elsewhere cannot lock the administrator out.
 * Past the limit the caller is told when to come back.
 */
export async function login(ctx: AppContext, loginName: string, password: string, clientAddress: string) {
  const { loginMaxFailures: max, loginFailureWindow: window } = ctx.config;
  const clientIp = clientKey(clientAddress);
  const { attempt, retryAfter } = await sessions.takeLoginAttempt(ctx.db, loginName, clientIp, window, max);
  if (attempt === null) throw new TooManyRequestsError('Too many failed login attempts. Try again later.', retryAfter);

  const admin = await findAdministratorByLogin(ctx.db, loginName);
  const valid = admin ? await verifyPassword(password, admin.passwordHash) : (await burnPasswordCheck(password), false);
  if (!admin || !valid || admin.disabled) {
    ctx.log.info({ event: 'login_failed' }, 'failed administrator login');
    throw new UnauthorizedError('Not authorized');
  }

  await sessions.clearFailures(ctx.db, attempt, admin.id, loginName, clientIp);
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

/** The live session a key opens (keys are kept hashed): what the authentication hook, plugins/auth.ts, asks. */
export function findSessionByKey(database: Parameters<typeof sessions.findLiveSession>[0], key: string) {
  return sessions.findLiveSession(database, hashSecret(key));
}
