import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loginFailures, sessions } from '../../src/db/schema/index.js';
import { createAdmin, createList } from '../factories.js';
import { assertAccessible, storedItem, browserSkip, screenshots, signIn, startConsole, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console shell', { skip }, () => {
  let h: ConsoleHarness;
  before(async () => {
    h = await startConsole({ loginMaxFailures: 3 });
  });
  after(async () => h?.close());

  test('GET / redirects to the console, which asks to sign in; a wrong password is said so; sign in and out', async () => {
    await createAdmin(h.app.db, { loginName: 'boss', password: 'correct horse battery' });
    const page = await h.newPage();
    const response = await page.goto('/');
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/sign-in');
    await assertAccessible(page, 'sign-in');
    await page.getByLabel('Login name').fill('boss');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The login name or password is wrong.' }).waitFor();

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/');
    const key = await storedItem(page, 'mailroom.session');
    assert.match(key ?? '', /^[0-9a-f]{32}$/);
    const menu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.deepEqual(menu, [
      'Dashboard',
      'Campaigns',
      'Templates',
      'Media',
      'Analytics',
      'Lists',
      'Subscribers',
      'Sign-up forms',
      'Segments',
      'Import',
      'Blacklist',
      'Bounces',
      'Attributes',
      'Admin attributes',
      'Webhooks',
      'Administrators',
      'Settings',
      'Your account',
    ]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await storedItem(page, 'mailroom.session'), null);
    // The session is ended on the server too.
    const left = await h.app.db.select().from(sessions);
    assert.equal(left.length, 0);
  });

  test('an expired session returns to the sign-in page, and signing in goes back to where the person was', async () => {
    await createAdmin(h.app.db, { loginName: 'expiring', password: 'correct horse battery' });
    const list = await createList(h.app.db, { name: 'Weekly news' });
    const page = await h.newPage();
    await signIn(page, 'expiring', 'correct horse battery');
    await page.goto(`/admin/lists/${list.id}`);
    await page.getByRole('heading', { name: 'Weekly news' }).waitFor();

    await h.app.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) });
    await page.getByRole('button', { name: 'Add members' }).click();
    await page.getByLabel(/E-mail addresses/).fill('late@example.com');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('Your session has ended. Sign in again to go on where you were.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/sign-in');

    await page.getByLabel('Login name').fill('expiring');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Weekly news' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/admin/lists/${list.id}`);
  });

  test('the menu follows privileges, and a page the administrator may not use says so', async () => {
    await createAdmin(h.app.db, {
      loginName: 'statsonly',
      password: 'correct horse battery',
      superUser: false,
      privileges: { statistics: true },
    });
    const page = await h.newPage();
    await signIn(page, 'statsonly', 'correct horse battery');
    const menu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.deepEqual(menu, ['Dashboard', 'Analytics', 'Your account']);
    await page.goto('/admin/subscribers');
    await page.getByRole('alert').filter({ hasText: 'You are not allowed to open this page (it needs the subscribers privilege).' }).waitFor();

    // An error answered by the API itself (one's own e-mail needs no privilege, but the current password).
    await page.goto('/admin/account');
    await page.getByLabel('Your e-mail').fill('new-address@example.com');
    await page
      .locator('form')
      .filter({ has: page.getByRole('heading', { name: 'E-mail' }) })
      .getByLabel('Current password')
      .fill('wrong one');
    await page.getByRole('button', { name: 'Save e-mail' }).click();
    await page.getByRole('alert').filter({ hasText: 'The current password is not right.' }).waitFor();
  });

  test('screenshots and accessibility: sign-in and your account, light and dark, desktop and phone', async () => {
    const { key, sessionId } = await h.app.adminWithSession();
    await screenshots(h, { key: '', id: 0 }, 'sign-in', '/admin/sign-in', (page) => page.getByRole('heading', { name: 'Sign in' }).waitFor());
    await screenshots(h, { key, id: sessionId }, 'account', '/admin/account', (page) =>
      page.getByRole('heading', { name: 'Your account' }).waitFor(),
    );
  });

  test('a 429 from the login throttle is shown with its wait', async () => {
    await createAdmin(h.app.db, { loginName: 'throttled', password: 'correct horse battery' });
    // The wrong current password typed in Your account above counts for this address too (PUT /sessions/me shares
    // the login throttle), so this test starts from no failures.
    await h.app.db.delete(loginFailures);
    const page = await h.newPage();
    await page.goto('/admin/');
    await page.getByLabel('Login name').fill('throttled');
    for (let i = 0; i < 4; i++) {
      await page.getByLabel('Password').fill(`wrong ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').first().waitFor();
    }
    await page
      .getByRole('alert')
      .filter({ hasText: /Too many failed sign-ins\. Try again in \d+ (minutes?|seconds?)\./ })
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sign in' }).isDisabled(), true);
  });
});
