import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSubscriber } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsole, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: attributes and administrators', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  before(async () => {
    h = await startConsole();
    const s = await h.app.adminWithSession({ loginName: 'root-admin' });
    session = { key: s.key, id: s.sessionId };
    headers = s.headers;
  });
  after(async () => h?.close());

  test('attributes: create each kind, add/rename/reorder options, an option in use is kept and the console says why, reorder definitions, delete', async () => {
    const page = await openSignedIn(h, session, '/admin/attributes');
    await page.getByText('No attributes yet').waitFor();

    await page.getByRole('button', { name: 'New attribute' }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Nickname');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('“Nickname” saved.').waitFor();

    await page.getByRole('button', { name: 'New attribute' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Colour');
    await dialog.getByLabel('Type').selectOption('select');
    for (const option of ['Red', 'Green', 'Blue']) {
      await dialog.getByLabel('New option').fill(option);
      await dialog.getByRole('button', { name: 'Add option' }).click();
    }
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('“Colour” saved.').waitFor();

    const list = await h.app.inject({ method: 'GET', url: '/api/v2/attributes', headers });
    const colour = (list.json() as { items: { id: number; name: string; type: string; options: { id: number; name: string }[] }[] }).items.find(
      (d) => d.name === 'Colour',
    )!;
    assert.deepEqual(
      colour.options.map((o) => o.name),
      ['Red', 'Green', 'Blue'],
    );
    const s = await createSubscriber(h.app.db);
    const set = await h.app.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}/attributes/${colour.id}`, headers, payload: { value: 'Red' } });
    assert.equal(set.statusCode, 201);

    await page.getByRole('button', { name: 'Edit Colour' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Option 2' }).fill('Lime');
    await dialog.getByRole('button', { name: 'Move Blue up' }).click();
    await dialog.getByRole('button', { name: 'Remove Red' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText("Saved. “Red” is still chosen by subscribers, so it was kept: change those subscribers' values first.").waitFor();
    const after = await h.app.inject({ method: 'GET', url: `/api/v2/attributes/${colour.id}`, headers });
    const options = (after.json() as { options: { name: string; list_order: number }[] }).options.sort((a, b) => a.list_order - b.list_order);
    assert.deepEqual(
      options.map((o) => o.name).filter((n) => n !== 'Red'),
      ['Blue', 'Lime'],
    );
    assert.ok(options.some((o) => o.name === 'Red'));

    await page.getByRole('button', { name: 'Move Colour up' }).click();
    await page.locator('tbody tr').first().getByText('Colour').waitFor();
    assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').allTextContents(), ['Colour', 'Nickname']);

    await page.getByRole('button', { name: 'Delete Nickname' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete attribute' }).click();
    await page.getByRole('row', { name: /Nickname/ }).waitFor({ state: 'detached' });
  });

  test('administrators: create with privileges, change privileges, new password, delete', async () => {
    const page = await openSignedIn(h, session, '/admin/administrators');
    await page.getByRole('row', { name: /root-admin/ }).waitFor();
    await page.getByRole('button', { name: 'New administrator' }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByLabel('Login name').fill('helper');
    await dialog.getByLabel('E-mail').fill('helper@example.com');
    await dialog.getByLabel('Password').fill('first password');
    await dialog.getByLabel('Subscribers and lists').check();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('helper created.').waitFor();
    const row = page.getByRole('row', { name: /helper/ });
    assert.match((await row.textContent()) ?? '', /subscribers/);

    await row.getByRole('button', { name: 'Edit helper' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Statistics').check();
    await dialog.getByLabel(/New password/).fill('second password');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('helper saved with a new password (their sessions have ended).').waitFor();
    // The notice shows before the reloaded table does: wait for the row to show the new privileges.
    await row.filter({ hasText: 'subscribers, statistics' }).waitFor();
    const login = await h.app.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'helper', password: 'second password' } });
    assert.equal(login.statusCode, 201);

    await row.getByRole('button', { name: 'Delete helper' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete administrator' }).click();
    await page.getByText('helper deleted.').waitFor();
    // The notice shows before the reloaded table does.
    await page.getByRole('row', { name: /helper/ }).waitFor({ state: 'detached' });
    const left = await h.app.inject({ method: 'GET', url: '/api/v2/administrators', headers });
    assert.deepEqual(
      (left.json() as { items: { login_name: string }[] }).items.map((a) => a.login_name),
      ['root-admin'],
    );
  });

  test('an administrator who is not a super user sees neither menu entry, and the pages say they are not allowed', async () => {
    const s = await h.app.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const page = await openSignedIn(h, { key: s.key, id: s.sessionId }, '/admin/administrators');
    await page.getByRole('alert').filter({ hasText: 'You are not allowed to open this page (only super users may).' }).waitFor();
    const menu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.deepEqual(menu, ['Lists', 'Subscribers', 'Segments', 'Import', 'Blacklist', 'Your account']);
  });

  test('screenshots and accessibility: attributes and administrators', async () => {
    await screenshots(h, session, 'attributes', '/admin/attributes', (page) => page.getByRole('row', { name: /Colour/ }).waitFor());
    await screenshots(h, session, 'administrators', '/admin/administrators', (page) => page.getByRole('row', { name: /root-admin/ }).waitFor());
  });
});
