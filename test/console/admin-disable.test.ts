import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: disable an administrator', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn({ loginName: 'root-admin' }));
  });
  after(async () => h?.close());

  test('disable: badge in the list, their session ends, they cannot sign in; enable again; no checkbox for yourself', async () => {
    const target = await h.app.adminWithSession({ loginName: 'helper', superUser: false, privileges: { campaigns: true } });
    const page = await openSignedIn(h, session, '/admin/administrators');
    const row = page.getByRole('row', { name: /helper/ });
    await row.waitFor();

    await page.getByRole('button', { name: 'Edit root-admin' }).click();
    await page.getByRole('dialog').getByLabel('Login name').waitFor();
    assert.equal(
      await page
        .getByRole('dialog')
        .getByLabel(/Disabled/)
        .count(),
      0,
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    await row.getByRole('button', { name: 'Edit helper' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/Disabled/)
      .check();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByText('helper saved and disabled (their sessions have ended).').waitFor();
    await row.getByText('disabled', { exact: true }).waitFor();
    const me = await h.app.inject({ method: 'GET', url: '/api/v2/sessions/me', headers: target.headers });
    assert.equal(me.statusCode, 403);
    const login = () =>
      h.app.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'helper', password: 'correct horse battery' } });
    assert.equal((await login()).statusCode, 401);

    await row.getByRole('button', { name: 'Edit helper' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/Disabled/)
      .uncheck();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByText('helper saved.').waitFor();
    await row.getByText('disabled', { exact: true }).waitFor({ state: 'detached' });
    assert.equal((await login()).statusCode, 201);

    // Disabled again for the screenshots below.
    await h.app.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${target.admin.id}`,
      headers: { 'php-auth-pw': session.key },
      payload: { disabled: true },
    });
  });

  test('screenshots and accessibility: administrators with a disabled one', async () => {
    await screenshots(h, session, 'administrators-disabled', '/admin/administrators', (page) =>
      page
        .getByRole('row', { name: /helper/ })
        .getByText('disabled', { exact: true })
        .waitFor(),
    );
  });
});
