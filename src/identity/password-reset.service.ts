import { escapeHtml } from '../shared/html.js';
import type { AppContext } from '../context.js';
import { mailQueued, queueMail } from '../mail/index.js';
import { BadRequestError, TooManyRequestsError } from '../shared/errors.js';
import { takeStrict } from '../shared/rate-limit.js';
import { findAdministratorByEmail } from './administrator.repository.js';
import { hashPassword } from './password.js';
import * as resets from './password-reset.repository.js';
import { hashSecret, newSecret } from './tokens.js';

/** A reset token is valid for 24 hours (phpList core). */
export const TOKEN_TTL_SECONDS = 24 * 60 * 60;
/** At most this many reset requests per administrator in the window (ours; phpList has no limit). */
export const MAX_REQUESTS = 3;
export const REQUEST_WINDOW_SECONDS = 15 * 60;

/** Reset requests one client address may make in REQUEST_WINDOW_SECONDS, whatever addresses they name. */
export const CLIENT_LIMIT = 10;
export const TOO_MANY_CLIENT = 'Too many password reset requests from your address. Try again later.';

/**
 * Starts a password reset. The answer is the same (204, in the same time) for a known, unknown or disabled
 * administrator and for one over their own limit, so the endpoint tells nobody which addresses are administrators'
 * (issue 23): only the client's own limit (CLIENT_LIMIT, 429) is visible. A known, enabled administrator within
 * MAX_REQUESTS gets a new token (replacing earlier ones) and the mail, queued in the same transaction.
 */
export async function requestReset(ctx: AppContext, email: string, clientIp: string | null): Promise<void> {
  const client = await takeStrict(ctx.db, `password-reset-client:${clientIp ?? 'unknown'}`, REQUEST_WINDOW_SECONDS, CLIENT_LIMIT);
  if (!client.granted) throw new TooManyRequestsError(TOO_MANY_CLIENT, client.retryAfter);
  const admin = await findAdministratorByEmail(ctx.db, email);
  if (!admin || admin.disabled) return;

  const token = newSecret();
  const queued = await ctx.db.transaction(async (tx) => {
    await resets.lockAdministrator(tx, admin.id);
    const now = Date.now();
    const latest = await resets.findLatestToken(tx, admin.id);
    const windowEnd = latest ? latest.windowStartedAt.getTime() + REQUEST_WINDOW_SECONDS * 1000 : 0;
    const inWindow = latest !== undefined && windowEnd > now;
    // Over the administrator's own limit: nothing happens, and the answer does not say so.
    if (inWindow && latest.requestCount >= MAX_REQUESTS) return false;
    await resets.deleteExpiredTokens(tx);
    await resets.replaceTokens(tx, {
      administratorId: admin.id,
      tokenHash: hashSecret(token),
      expiresAt: new Date(now + TOKEN_TTL_SECONDS * 1000),
      requestCount: inWindow ? latest.requestCount + 1 : 1,
      windowStartedAt: inWindow ? latest.windowStartedAt : new Date(now),
    });
    await queueMail(ctx, tx, 'password-reset', { to: admin.email, ...resetMail(ctx.config.passwordResetUrl + token, admin.loginName) });
    return true;
  });
  if (!queued) return;
  mailQueued(ctx);
  ctx.log.info({ event: 'password_reset_requested', administratorId: admin.id }, 'password reset mail queued');
}

/** Whether the token can still be used. An expired token is deleted on the way. */
export async function validateToken(ctx: AppContext, token: string): Promise<boolean> {
  const row = await resets.findToken(ctx.db, hashSecret(token));
  if (!row) return false;
  if (row.expired) {
    await resets.deleteToken(ctx.db, row.id);
    return false;
  }
  return !row.disabled;
}

/**
 * Sets a new password with a reset token. In one transaction: the token is used up, the password hash and its
 * change time are set, and every session of the administrator ends.
 */
export async function resetPassword(ctx: AppContext, token: string, newPassword: string): Promise<void> {
  const tokenHash = hashSecret(token);
  // Cheap check first, so that guessing tokens costs the server no password hashing.
  const found = await resets.findToken(ctx.db, tokenHash);
  if (!found || found.expired || found.disabled) {
    if (found?.expired) await resets.deleteToken(ctx.db, found.id);
    throw new BadRequestError('Invalid or expired token');
  }
  const passwordHash = await hashPassword(newPassword);
  const done = await ctx.db.transaction(async (tx) => {
    const administratorId = await resets.consumeToken(tx, tokenHash);
    if (administratorId === undefined) return false;
    return resets.setPasswordAndEndSessions(tx, administratorId, passwordHash);
  });
  if (!done) throw new BadRequestError('Invalid or expired token');
  ctx.log.info({ event: 'password_reset', administratorId: found.administratorId }, 'administrator password reset');
}

function resetMail(link: string, loginName: string) {
  const text = [
    `Hello ${loginName},`,
    '',
    'Somebody (hopefully you) asked to reset the password of your Mailroom administrator account.',
    'To choose a new password, open this link within 24 hours:',
    '',
    link,
    '',
    'If you did not ask for this, ignore this mail: your password stays as it is.',
  ].join('\n');
  const html = [
    `<p>Hello ${escapeHtml(loginName)},</p>`,
    '<p>Somebody (hopefully you) asked to reset the password of your Mailroom administrator account.',
    'To choose a new password, open this link within 24 hours:</p>',
    `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    '<p>If you did not ask for this, ignore this mail: your password stays as it is.</p>',
  ].join('\n');
  return { subject: 'Reset your Mailroom password', text, html };
}
