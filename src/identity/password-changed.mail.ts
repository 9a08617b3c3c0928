import type { AppContext } from '../context.js';
import { escapeHtml } from '../shared/html.js';

/**
 * Tells an administrator that someone else set their password (PUT /administrators/{adminId}), so that a takeover
 * does not go unnoticed. No address, no mail. System mail through the mailer; a failure is logged (without the
 * address) and does not undo the change, which is made already. The one place this mail is sent from, so it can be
 * routed through a durable mail queue later.
 */
export async function sendPasswordChangedMail(
  ctx: AppContext,
  admin: { id: number; loginName: string; email: string },
  changedBy: string,
): Promise<void> {
  if (!admin.email.trim()) return;
  try {
    await ctx.mailer.send({ to: admin.email, ...passwordChangedMail(admin.loginName, changedBy, new Date()) });
    ctx.log.info({ event: 'password_changed_mail_sent', administratorId: admin.id }, 'password-changed mail sent');
  } catch (err) {
    ctx.log.error({ err, event: 'password_changed_mail_failed', administratorId: admin.id }, 'password-changed mail failed');
  }
}

function passwordChangedMail(loginName: string, changedBy: string, at: Date) {
  const when = at.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const lines = [
    `Hello ${loginName},`,
    '',
    `The password of your Mailroom administrator account was changed by the administrator "${changedBy}" on ${when}.`,
    'Your sessions have ended: sign in with the new password, which they can tell you.',
    '',
    'If you did not expect this, tell a super user of your Mailroom at once.',
  ];
  const html = [
    `<p>Hello ${escapeHtml(loginName)},</p>`,
    `<p>The password of your Mailroom administrator account was changed by the administrator "${escapeHtml(changedBy)}" on ${when}.`,
    'Your sessions have ended: sign in with the new password, which they can tell you.</p>',
    '<p>If you did not expect this, tell a super user of your Mailroom at once.</p>',
  ].join('\n');
  return { subject: 'Your Mailroom password was changed', text: lines.join('\n'), html };
}
