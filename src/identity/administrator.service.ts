import type { AppContext } from '../context.js';
import { clientKey } from '../shared/client-address.js';
import { ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import { assertMayGrant, assertMayManage, rightsOf, type ManageAction, type Rights } from './administrator-rights.js';
import * as repo from './administrator.repository.js';
import type { Administrator, CreateAdministratorBody, UpdateAdministratorBody } from './administrator.schemas.js';
import { hashPassword, verifyPassword } from './password.js';
import { sendPasswordChangedMail } from './password-changed.mail.js';
import { clearFailures, deleteSessionsOf, takeLoginAttempt } from './session.repository.js';
import type { UpdateOwnAccountBody } from './session.schemas.js';

export async function getAdministrator(ctx: AppContext, id: number): Promise<Administrator> {
  return repo.toAdministrator(await requireAdministrator(ctx, id));
}

export async function requireAdministrator(ctx: AppContext, id: number) {
  const row = await repo.findAdministrator(ctx.db, id);
  if (!row) throw new NotFoundError('Administrator not found.');
  return row;
}

/** The administrator `id`, if the caller may change or delete them (administrator-rights.ts); 404, then 403. */
export async function requireManageable(ctx: AppContext, id: number, caller: Rights, action: ManageAction) {
  const row = await requireAdministrator(ctx, id);
  assertMayManage(caller, rightsOf(row), action);
  return row;
}

export async function listAdministrators(ctx: AppContext, afterId: number, limit: number) {
  const { rows, total } = await repo.listAdministrators(ctx.db, afterId, limit);
  return toPage(rows.map(repo.toAdministrator), total, limit, (a) => a.id);
}

async function assertUnique(ctx: AppContext, loginName?: string | null, email?: string | null, exceptId?: number) {
  if (loginName && (await repo.loginOrEmailTaken(ctx.db, 'loginName', loginName, exceptId))) {
    throw new ConflictError('Login already exists.');
  }
  if (email && (await repo.loginOrEmailTaken(ctx.db, 'email', email, exceptId))) {
    throw new ConflictError('Email already exists.');
  }
}

/** Creates an administrator; a caller who is not a super user grants only what they hold (403). */
export async function createAdministrator(ctx: AppContext, body: CreateAdministratorBody, caller: Rights): Promise<Administrator> {
  assertMayGrant(caller, body);
  const loginName = body.login_name.trim();
  await assertUnique(ctx, loginName, body.email);
  const row = await repo.insertAdministrator(ctx.db, {
    loginName,
    email: body.email,
    passwordHash: await hashPassword(body.password),
    superUser: body.super_user ?? false,
    passwordChangedAt: new Date(),
    ...repo.privilegeColumns(body.privileges ?? {}),
  });
  return repo.toAdministrator(row);
}

/**
 * Changes only what is sent: absent or null fields stay as they are, and only the privilege flags present in
 * `privileges` change (phpList resets the others; ../shared/api/DECISIONS.md § Authentication and authorization). A new
 * password ends the administrator's other sessions, and tells them by mail when someone else set it. Disabling (ours)
 * ends all their sessions; nobody disables themself, nor the last enabled super user. A caller who is not a super user
 * changes only administrators within their own rights and grants only what they hold (administrator-rights.ts).
 */
export async function updateAdministrator(
  ctx: AppContext,
  id: number,
  body: UpdateAdministratorBody,
  caller: { id: number; sessionId: number } & Rights,
): Promise<Administrator> {
  await requireManageable(ctx, id, caller, 'change');
  assertMayGrant(caller, body);
  return applyUpdate(ctx, id, body, caller);
}

/** The update itself, once the caller's rights are settled (by updateAdministrator, or as their own account). */
async function applyUpdate(
  ctx: AppContext,
  id: number,
  body: UpdateAdministratorBody,
  caller: { id: number; sessionId: number },
): Promise<Administrator> {
  const current = await requireAdministrator(ctx, id);
  if (body.disabled === true && !current.disabled) {
    if (id === caller.id) throw new ConflictError('You cannot disable yourself.');
    if (current.superUser) await assertAnotherSuperUser(ctx, id, 'The last super user cannot be disabled.');
  }
  const loginName = body.login_name?.trim();
  await assertUnique(ctx, loginName, body.email, id);
  const passwordHash = body.password ? await hashPassword(body.password) : undefined;
  const row = await ctx.db.transaction(async (tx) => {
    const updated = await repo.updateAdministrator(tx, id, {
      ...(loginName ? { loginName } : {}),
      ...(body.email ? { email: body.email } : {}),
      ...(typeof body.super_user === 'boolean' ? { superUser: body.super_user } : {}),
      ...(passwordHash ? { passwordHash, passwordChangedAt: new Date() } : {}),
      ...(typeof body.disabled === 'boolean' ? { disabled: body.disabled } : {}),
      ...repo.privilegeColumns(body.privileges ?? {}),
    });
    // Sessions of a disabled administrator are refused anyway; deleting them keeps re-enabling from reviving them.
    if (body.disabled === true) await deleteSessionsOf(tx, id);
    else if (passwordHash) await deleteSessionsOf(tx, id, caller.sessionId);
    return updated;
  });
  if (!row) throw new NotFoundError('Administrator not found.');
  if (passwordHash && id !== caller.id) {
    const by = await repo.findAdministrator(ctx.db, caller.id);
    await sendPasswordChangedMail(ctx, row, by?.loginName ?? `#${caller.id}`);
  }
  return repo.toAdministrator(row);
}

/**
 * Deletes an administrator; their sessions go with them, lists they own become owner-less. A caller who is not a
 * super user deletes only administrators within their own rights.
 */
export async function deleteAdministrator(ctx: AppContext, id: number, caller: Rights): Promise<void> {
  const row = await requireManageable(ctx, id, caller, 'delete');
  if (row.superUser && !row.disabled) await assertAnotherSuperUser(ctx, id, 'The last super user cannot be deleted.');
  await repo.deleteAdministrator(ctx.db, id);
}

/** Someone must still be able to manage administrators after `id` is deleted or disabled. */
async function assertAnotherSuperUser(ctx: AppContext, id: number, message: string): Promise<void> {
  if (!(await repo.anotherSuperUserExists(ctx.db, id))) throw new ConflictError(message);
}

/**
 * The caller's own e-mail and password (`PUT /sessions/me`), checked against their current password; a wrong one
 * is a 422 at `current_password` (not 401/403, which would read as a failed login or an ended session). Guesses are
 * throttled as logins are, and share their count (routine 045_login_attempt.sql, under the caller's login name and
 * address): it is the same password, so a stolen session key buys no extra guesses, and past the limit the answer is
 * 429 with Retry-After before any password check. A new password ends their other sessions, as an update by a super
 * user does.
 */
export async function updateOwnAccount(
  ctx: AppContext,
  id: number,
  body: UpdateOwnAccountBody,
  caller: { sessionId: number; clientIp: string },
): Promise<Administrator> {
  const row = await requireAdministrator(ctx, id);
  const { loginMaxFailures: max, loginFailureWindow: window } = ctx.config;
  const clientIp = clientKey(caller.clientIp);
  const { attempt, retryAfter } = await takeLoginAttempt(ctx.db, row.loginName, clientIp, window, max);
  if (attempt === null) throw new TooManyRequestsError('Too many wrong current passwords. Try again later.', retryAfter);
  if (!(await verifyPassword(body.current_password, row.passwordHash))) {
    ctx.log.info({ event: 'own_account_password_failed' }, 'wrong current password on PUT /sessions/me');
    throw ValidationError.field('current_password', 'The current password is not right.');
  }
  await clearFailures(ctx.db, attempt, id, row.loginName, clientIp);
  return applyUpdate(ctx, id, { email: body.email, password: body.password }, { id, sessionId: caller.sessionId });
}
