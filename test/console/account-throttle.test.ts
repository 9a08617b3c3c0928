import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAccessible, browserSkip, openSignedIn, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();
const PASSWORD = 'correct horse battery';

describe('console: your account under the password throttle (LOGIN_MAX_FAILURES 2)', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn({ loginName: 'guessed-admin', superUser: false }, { loginMaxFailures: 2 }));
  });
  after(async () => h?.close());

  test('after too many wrong current passwords the page shows the wait and both forms wait too', async () => {
    const page = await openSignedIn(h, session, '/admin/account');
    const emailForm = page.locator('form').filter({ has: page.getByRole('heading', { name: 'E-mail' }) });
    const passwordForm = page.locator('form').filter({ has: page.getByRole('heading', { name: 'Password' }) });
    await emailForm.getByLabel('Your e-mail').fill('thief@example.com');
    for (let i = 0; i < 2; i++) {
      await emailForm.getByLabel('Current password').fill(`guess ${i}`);
      await emailForm.getByRole('button', { name: 'Save e-mail' }).click();
      await emailForm.getByRole('alert').filter({ hasText: 'The current password is not right.' }).waitFor();
    }
    // The third try, even with the right password, is refused by the API: the page says how long to wait.
    await emailForm.getByLabel('Current password').fill(PASSWORD);
    await emailForm.getByRole('button', { name: 'Save e-mail' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^Too many wrong current passwords\. Try again in \d+ minutes?\.$/ })
      .waitFor();
    assert.equal(await emailForm.getByRole('button', { name: 'Save e-mail' }).isDisabled(), true);
    assert.equal(await passwordForm.getByRole('button', { name: 'Change password' }).isDisabled(), true);
    assert.equal(await emailForm.getByText('Your e-mail address is changed.').count(), 0);
    const me = await h.app.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: { 'php-auth-pw': session.key } });
    assert.notEqual(me.json().email, 'thief@example.com');
    await assertAccessible(page, 'your account while throttled');
  });
});
