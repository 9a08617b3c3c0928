import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSubscriber } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/** The type menu's entries, in order: every subscriber attribute type in plain words. */
const TYPE_LABELS = [
  'Text (one line)',
  'Text (several lines)',
  'Checkbox (yes or no)',
  'Drop-down list (one choice)',
  'Radio buttons (one choice)',
  'Checkboxes (any number of choices)',
  'Date',
  'Hidden (not shown on forms)',
  'Card number',
];

describe('console: attributes and administrators', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn({ loginName: 'root-admin' }));
  });
  after(async () => h?.close());

  test('attributes: create each kind, add/rename/reorder options, an option in use is kept and the console says why, reorder definitions, delete', async () => {
    const page = await openSignedIn(h, session, '/admin/attributes');
    await page.getByText('No attributes yet').waitFor();

    await page.getByRole('button', { name: 'New attribute' }).click();
    let dialog = page.getByRole('dialog');
    assert.deepEqual(await dialog.getByLabel('Type').locator('option').allTextContents(), TYPE_LABELS);
    assert.equal(await dialog.getByLabel('Type').inputValue(), 'textline');
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
    // The table speaks plainly too, and shows each attribute's placeholder exactly as the definition answers it.
    await page.getByRole('row', { name: /Colour/ }).waitFor();
    assert.deepEqual(await page.locator('thead th').allTextContents(), ['Order', 'Name', 'Type', 'Placeholder', 'Options', 'Default', 'Actions']);
    assert.deepEqual(
      await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(1, 4).map((td) => td.textContent))),
      [
        ['Nickname', 'Text (one line)', '[NICKNAME]'],
        ['Colour', 'Drop-down list (one choice)', '[COLOUR]'],
      ],
    );

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
    await page.locator('tbody tr').first().getByText('Colour', { exact: true }).waitFor();
    assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').allTextContents(), ['Colour', 'Nickname']);

    await page.getByRole('button', { name: 'Delete Nickname' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete attribute' }).click();
    await page.getByRole('row', { name: /Nickname/ }).waitFor({ state: 'detached' });
  });

  test("the options editor keeps each option's Remove on its row, on a phone and on a desktop", async () => {
    const long = 'A rather long option name that fills its box and then some more';
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v2/attributes',
      headers,
      payload: { name: 'Size', type: 'radio', options: [{ name: 'Small' }, { name: 'Medium' }, { name: 'Large' }, { name: long }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    for (const phone of [true, false]) {
      const page = await openSignedIn(h, session, '/admin/attributes', { phone });
      await page.getByRole('button', { name: 'Edit Size' }).click();
      const dialog = page.getByRole('dialog');
      const box = (await dialog.boundingBox())!;
      for (const [i, name] of ['Small', 'Medium', 'Large', long].entries()) {
        const input = (await dialog.getByRole('textbox', { name: `Option ${i + 1}`, exact: true }).boundingBox())!;
        const remove = (await dialog.getByRole('button', { name: `Remove ${name}` }).boundingBox())!;
        const where = `${phone ? 'phone' : 'desktop'}, option ${i + 1}`;
        assert.ok(Math.abs(remove.y + remove.height / 2 - (input.y + input.height / 2)) < 4, `Remove centred on its input's line (${where})`);
        assert.ok(remove.x >= input.x + input.width, `Remove after its input (${where})`);
        assert.ok(remove.x + remove.width <= box.x + box.width, `Remove inside the dialog (${where})`);
        assert.ok(input.width >= 100, `the input keeps a usable width (${where}): ${input.width}`);
      }
      await page.context().close();
    }
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
    assert.deepEqual(menu, ['Lists', 'Subscribers', 'Sign-up forms', 'Segments', 'Import', 'Blacklist', 'Your account']);
  });

  test('screenshots and accessibility: attributes and administrators', async () => {
    await screenshots(h, session, 'attributes', '/admin/attributes', (page) => page.getByRole('row', { name: /Colour/ }).waitFor());
    await screenshots(h, session, 'attribute-options', '/admin/attributes', async (page) => {
      await page.getByRole('button', { name: 'Edit Size' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove Small' }).waitFor();
    });
    await screenshots(h, session, 'administrators', '/admin/administrators', (page) => page.getByRole('row', { name: /root-admin/ }).waitFor());
  });
});
