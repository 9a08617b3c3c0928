import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAdmin } from '../factories.js';
import { browserSkip, screenshots, signIn, startConsole, type ConsoleHarness } from './browser.js';

const skip = browserSkip();
const NO_SESSION = { key: '', id: 0 };

/*
 * Issue 25: the default reset link (PASSWORD_RESET_URL) led to a 404, and the sign-in page had no way to ask for one.
 * In a real browser: "Forgot password?" on the sign-in page, the request, the mail read back from the SMTP sink, its
 * link opened, a new password set, and a sign-in with it.
 */
describe('console: forgot password', { skip }, () => {
  let h: ConsoleHarness;
  before(async () => {
    h = await startConsole();
    await createAdmin(h.app.db, { loginName: 'forgetful', email: 'forgetful@example.com', password: 'the old password' });
  });
  after(async () => h?.close());

  /** The reset link of the latest mail to `to`, as a path on this test's server (PUBLIC_URL names another host). */
  async function resetLink(to: string, before: number): Promise<string> {
    const mails = await h.app.smtp.waitFor(before + 1);
    const mail = mails.slice(before).find((m) => m.envelope.to.includes(to));
    assert.ok(mail, `a mail to ${to}`);
    const link = /(https?:\/\/\S+\/admin\/password-reset\?token=\S+)/.exec(mail.parsed.text ?? '')?.[1];
    assert.ok(link, `the mail has a link to the console's reset page: ${mail.parsed.text}`);
    assert.ok(link.startsWith(`${h.app.config.publicUrl}/admin/password-reset?token=`), link);
    const url = new URL(link);
    return `${url.pathname}${url.search}`;
  }

  test('request a link from the sign-in page, open it from the mail, set a new password, sign in with it', async () => {
    const page = await h.newPage();
    await page.goto('/admin/');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/password-reset');
    const before = h.app.smtp.messages.length;
    await page.getByLabel('E-mail address').fill('forgetful@example.com');
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await page.getByText('If an administrator account has the address forgetful@example.com').waitFor();

    const link = await resetLink('forgetful@example.com', before);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password (8 characters or more)').fill('a brand new secret');
    await page.getByLabel('The new password again').fill('a different one');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await page.getByLabel('The new password again').fill('a brand new secret');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    assert.equal(new URL(page.url()).search, '', 'the used token leaves the address');

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Login name').fill('forgetful');
    await page.getByLabel('Password').fill('the old password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The login name or password is wrong.').waitFor();
    await signIn(page, 'forgetful', 'a brand new secret');

    // The link works once.
    const again = await h.newPage();
    await again.goto(link);
    await again.getByText('This link has expired or has been used already.').waitFor();
    await again.getByRole('heading', { name: 'Ask for a new link' }).waitFor();
  });

  test('an address nobody has gets the same answer, and no mail', async () => {
    const page = await h.newPage();
    await page.goto('/admin/password-reset');
    const before = h.app.smtp.messages.length;
    await page.getByLabel('E-mail address').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await page.getByText('If an administrator account has the address nobody@example.com').waitFor();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(h.app.smtp.messages.length, before);
  });

  test('the old default address, /password-reset?token=…, leads to the page', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/password-reset?token=abc%2Bdef' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/admin/password-reset?token=abc%2Bdef');
    const bare = await h.app.inject({ method: 'GET', url: '/password-reset' });
    assert.deepEqual([bare.statusCode, bare.headers.location], [302, '/admin/password-reset']);
    const page = await h.newPage();
    await page.goto('/password-reset?token=not-a-real-token');
    await page.getByText('This link has expired or has been used already.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/password-reset');
  });

  test('screenshots and accessibility: sign-in with its link, the request form, the new-password form', async () => {
    await screenshots(h, NO_SESSION, 'sign-in', '/admin/sign-in', (page) => page.getByRole('link', { name: 'Forgot password?' }).waitFor());
    await screenshots(h, NO_SESSION, 'password-reset-request', '/admin/password-reset', (page) =>
      page.getByRole('heading', { name: 'Reset your password' }).waitFor(),
    );
    const before = h.app.smtp.messages.length;
    const asked = await h.app.inject({ method: 'POST', url: '/api/v2/password-reset/request', payload: { email: 'forgetful@example.com' } });
    assert.equal(asked.statusCode, 204, asked.body);
    const link = await resetLink('forgetful@example.com', before);
    await screenshots(h, NO_SESSION, 'password-reset-new', link, (page) => page.getByRole('heading', { name: 'Choose a new password' }).waitFor());
  });
});
