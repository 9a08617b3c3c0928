import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import * as repo from './administrator.repository.js';
import { StartupError } from '../db/data-dir.js';
import { NEW_PASSWORD_MIN } from './administrator.schemas.js';
import { hashPassword, verifyPassword } from './password.js';

export type BootstrapResult = { kind: 'unchanged' } | { kind: 'configured'; login: string } | { kind: 'generated'; login: string; password: string };

const ALL_PRIVILEGES = { subscribers: true, campaigns: true, statistics: true, settings: true };

/**
 * First start (../shared/api/DECISIONS.md § Authentication and authorization): with ADMIN_LOGIN/ADMIN_PASSWORD, that
 * super user is created or its password reset; without them, and with no administrator at all, a super user `admin`
 * with a random password is created and the caller prints the password once.
 */
export async function ensureFirstAdministrator(ctx: AppContext): Promise<BootstrapResult> {
  const { login, password, email } = ctx.config.admin;
  if (login) {
    const existing = await repo.findAdministratorByLogin(ctx.db, login);
    await assertNewPasswordLongEnough(password, existing);
    const passwordHash = await hashPassword(password);
    if (existing) {
      await repo.updateAdministrator(ctx.db, existing.id, {
        passwordHash,
        passwordChangedAt: new Date(),
        superUser: true,
        disabled: false,
        ...(email ? { email } : {}),
      });
    } else {
      await repo.insertAdministrator(ctx.db, {
        loginName: login,
        email: email || `${login.replace(/[^A-Za-z0-9._-]/g, '')}@mailroom.invalid`,
        passwordHash,
        superUser: true,
        passwordChangedAt: new Date(),
        ...repo.privilegeColumns(ALL_PRIVILEGES),
      });
    }
    return { kind: 'configured', login };
  }
  if ((await repo.countAdministrators(ctx.db)) > 0) return { kind: 'unchanged' };
  const generated = randomBytes(12).toString('base64url');
  await repo.insertAdministrator(ctx.db, {
    loginName: 'admin',
    email: email || 'admin@mailroom.invalid',
    passwordHash: await hashPassword(generated),
    superUser: true,
    passwordChangedAt: new Date(),
    ...repo.privilegeColumns(ALL_PRIVILEGES),
  });
  return { kind: 'generated', login: 'admin', password: generated };
}

/**
 * ADMIN_PASSWORD must have NEW_PASSWORD_MIN characters when it sets a password: for a new administrator, or one whose
 * stored password it is not. The one an existing administrator already has keeps working whatever its length (the
 * configuration checks 8), so an installation started with a shorter one still starts. Exit 78, as for the
 * configuration.
 */
async function assertNewPasswordLongEnough(password: string, existing: { passwordHash: string } | undefined): Promise<void> {
  if (password.length >= NEW_PASSWORD_MIN) return;
  if (existing && (await verifyPassword(password, existing.passwordHash))) return;
  throw new StartupError(
    `ADMIN_PASSWORD must have ${NEW_PASSWORD_MIN} characters or more to set a new password ` +
      `(an existing administrator's current password of 8 or more still works).`,
    78,
  );
}

/**
 * What the start banner says about getting into the admin console (`consoleUrl`, e.g. http://localhost:8080/admin/):
 * on the first start, the generated password and where to change it; with ADMIN_LOGIN/ADMIN_PASSWORD, that account;
 * on any later start, how to get back in. Terminal text (stderr), never the structured log.
 */
export function signInHelp(consoleUrl: string, result: BootstrapResult): string {
  switch (result.kind) {
    case 'generated':
      return (
        `First start: created the super user "${result.login}" with password: ${result.password}\n` +
        `Open ${consoleUrl} and sign in as ${result.login} with that password; change it under "Your account".\n`
      );
    case 'configured':
      return `Admin console: ${consoleUrl} (sign in as ${result.login} with ADMIN_PASSWORD).\n`;
    case 'unchanged':
      return (
        `Admin console: ${consoleUrl} (sign in with your login name and password).\n` +
        'Forgot the password? "Forgot password?" on the sign-in page mails a reset link (with a mail server set up), or set ' +
        'ADMIN_LOGIN and ADMIN_PASSWORD and restart: that account gets that password.\n'
      );
  }
}
