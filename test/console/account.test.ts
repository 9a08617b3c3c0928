import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();
const PASSWORD = 'correct horse battery';

describe('console: your account without the settings privilege', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn({ loginName: 'plain-admin', superUser: false, privileges: { campaigns: true } }));
  });
  after(async () => h?.close());

  const login = (password: string) => h.app.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'plain-admin', password } });

  test('a wrong current password is refused; with the right one the e-mail and the password change', async () => {
    const page = await openSignedIn(h, session, '/admin/account');
    const emailForm = page.locator('form').filter({ has: page.getByRole('heading', { name: 'E-mail' }) });
    const passwordForm = page.locator('form').filter({ has: page.getByRole('heading', { name: 'Password' }) });

    await emailForm.getByLabel('Your e-mail').fill('plain.new@example.com');
    await emailForm.getByLabel('Current password').fill('not my password');
    await emailForm.getByRole('button', { name: 'Save e-mail' }).click();
    await emailForm.getByRole('alert').filter({ hasText: 'The current password is not right.' }).waitFor();

    await emailForm.getByLabel('Current password').fill(PASSWORD);
    await emailForm.getByRole('button', { name: 'Save e-mail' }).click();
    await emailForm.getByText('Your e-mail address is changed.').waitFor();
    const me = await h.app.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: { 'php-auth-pw': session.key } });
    assert.equal(me.json().email, 'plain.new@example.com');

    await passwordForm.getByLabel('Current password').fill(PASSWORD);
    await passwordForm.getByLabel('New password', { exact: true }).fill('my new password');
    await passwordForm.getByLabel('New password again').fill('my new password');
    await passwordForm.getByRole('button', { name: 'Change password' }).click();
    await passwordForm.getByText('Your password is changed. Your other sessions have ended.').waitFor();
    assert.equal((await login(PASSWORD)).statusCode, 401);
    assert.equal((await login('my new password')).statusCode, 201);
  });

  test('screenshots and accessibility: your account as an administrator without settings', async () => {
    await screenshots(h, session, 'account-self-service', '/admin/account', (page) => page.getByLabel('Your e-mail').waitFor());
  });
});
