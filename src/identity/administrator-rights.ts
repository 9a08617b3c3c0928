import { ForbiddenError } from '../shared/errors.js';
import { PRIVILEGES, type Privilege } from './administrator.schemas.js';

/*
 * Who may manage whom (issue 23). The `settings` privilege opens the administrator routes, but an administrator who
 * is not a super user may only hand out what they hold and only touch administrators whose rights are all within
 * their own: otherwise granting themselves super user, or setting the password (or the e-mail address, then asking
 * for a password reset) of someone who has more rights and signing in as them, would make `settings` everything.
 * Super users may do anything. docs/api.md § Sessions and administrators.
 */

/** The rights of an administrator: the caller's (plugins/auth.ts Caller) or a stored one's. */
export interface Rights {
  readonly superUser: boolean;
  readonly privileges: Readonly<Record<Privilege, boolean>>;
}

/** A stored administrator row's rights. */
export function rightsOf(row: {
  superUser: boolean;
  privSubscribers: boolean;
  privCampaigns: boolean;
  privStatistics: boolean;
  privSettings: boolean;
}): Rights {
  return {
    superUser: row.superUser,
    privileges: { subscribers: row.privSubscribers, campaigns: row.privCampaigns, statistics: row.privStatistics, settings: row.privSettings },
  };
}

/** The privileges `target` holds (all of them for a super user) that `caller` does not. */
function lacking(caller: Rights, target: Rights): Privilege[] {
  if (caller.superUser) return [];
  return PRIVILEGES.filter((p) => (target.superUser || target.privileges[p]) && !caller.privileges[p]);
}

export type ManageAction = 'change' | 'delete';

/**
 * Refuses (403) a caller who is not a super user touching a super user, or an administrator holding a privilege the
 * caller lacks: editing, disabling, re-passwording (`change`) or deleting them.
 */
export function assertMayManage(caller: Rights, target: Rights, action: ManageAction): void {
  if (caller.superUser) return;
  if (target.superUser) throw new ForbiddenError(`Only a super user may ${action} a super user.`);
  const missing = lacking(caller, target);
  if (missing.length > 0) {
    throw new ForbiddenError(`Only a super user may ${action} an administrator with privileges you do not have yourself: ${missing.join(', ')}.`);
  }
}

/** Refuses (403) a caller who is not a super user granting super user, or a privilege they do not hold themselves. */
export function assertMayGrant(
  caller: Rights,
  wanted: { super_user?: boolean | null; privileges?: Partial<Record<Privilege, boolean>> | null },
): void {
  if (caller.superUser) return;
  if (wanted.super_user === true) throw new ForbiddenError('Only a super user may make an administrator a super user.');
  const missing = PRIVILEGES.filter((p) => wanted.privileges?.[p] === true && !caller.privileges[p]);
  if (missing.length > 0) {
    throw new ForbiddenError(`You cannot grant privileges you do not have yourself: ${missing.join(', ')}.`);
  }
}
