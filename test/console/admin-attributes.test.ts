import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAccessible, browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

interface Definition {
  id: number;
  name: string;
  type: string | null;
  list_order: number | null;
  default_value: string | null;
  required: boolean;
}

describe('console: administrator attributes', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn({ loginName: 'root-admin' }));
  });
  after(async () => h?.close());

  const definitions = async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v2/administrators/attributes', headers });
    assert.equal(res.statusCode, 200);
    return (res.json() as { items: Definition[] }).items;
  };

  test('definitions: create, edit (type, default, required), reorder, delete', async () => {
    const page = await openSignedIn(h, session, '/admin/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin attributes' }).click();
    await page.getByRole('heading', { name: 'Administrator attributes' }).waitFor();
    await page.getByText('No attributes yet').waitFor();

    for (const name of ['Phone', 'Department', 'Badge']) {
      await page.getByRole('button', { name: 'New attribute' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill(name);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`“${name}” saved.`).waitFor();
      await page.getByRole('row', { name: new RegExp(name) }).waitFor();
    }
    assert.deepEqual(
      (await definitions()).map((d) => [d.name, d.type, d.list_order, d.default_value, d.required]),
      [
        ['Phone', 'textline', 1, null, false],
        ['Department', 'textline', 2, null, false],
        ['Badge', 'textline', 3, null, false],
      ],
    );

    await page.getByRole('button', { name: 'Edit Department' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Team');
    await dialog.getByLabel('Type').selectOption('hidden');
    await dialog.getByLabel(/Default value/).fill('Sales');
    await dialog.getByLabel('Required').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('“Team” saved.').waitFor();
    await page.getByRole('row', { name: /Team/ }).filter({ hasText: 'Required' }).filter({ hasText: 'Sales' }).waitFor();
    const team = (await definitions()).find((d) => d.name === 'Team')!;
    assert.deepEqual([team.type, team.default_value, team.required], ['hidden', 'Sales', true]);

    // A duplicate name is refused with the API's message, inside the dialog.
    await page.getByRole('button', { name: 'New attribute' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('phone');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').getByRole('alert').filter({ hasText: 'Attribute definition already exists.' }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Move Badge up' }).click();
    await page.locator('tbody tr').nth(1).getByText('Badge').waitFor();
    // The name is the cell's first text; a Required badge follows it.
    assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').evaluateAll((tds) => tds.map((td) => td.firstChild?.textContent)), [
      'Phone',
      'Badge',
      'Team',
    ]);
    assert.deepEqual(
      (await definitions()).map((d) => [d.name, d.list_order]),
      [
        ['Phone', 1],
        ['Team', 3],
        ['Badge', 2],
      ],
    );

    await page.getByRole('button', { name: 'Delete Badge' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete attribute' }).click();
    await page.getByRole('row', { name: /Badge/ }).waitFor({ state: 'detached' });
    assert.deepEqual(
      (await definitions()).map((d) => d.name),
      ['Phone', 'Team'],
    );
  });

  test("values: the administrator dialog shows and sets an administrator's values; emptying one deletes it", async () => {
    const defs = await definitions();
    const phone = defs.find((d) => d.name === 'Phone')!;
    const team = defs.find((d) => d.name === 'Team')!;
    const other = await h.app.adminWithSession({ loginName: 'helper-admin', superUser: false, privileges: { subscribers: true } });
    const stored = await h.app.inject({
      method: 'PUT',
      url: `/api/v2/administrators/${other.admin.id}/attributes/${phone.id}`,
      headers,
      payload: { value: '+44 1' },
    });
    assert.equal(stored.statusCode, 201);

    const page = await openSignedIn(h, session, '/admin/administrators');
    await page.getByRole('button', { name: 'Edit helper-admin' }).click();
    const dialog = page.getByRole('dialog');
    const phoneField = dialog.getByRole('group', { name: 'Attributes' }).getByLabel('Phone');
    await phoneField.waitFor();
    assert.equal(await phoneField.inputValue(), '+44 1');
    await dialog.getByLabel('Team (required)').fill('Support');
    await phoneField.fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('helper-admin saved.').waitFor();

    const value = (definitionId: number) =>
      h.app.inject({ method: 'GET', url: `/api/v2/administrators/${other.admin.id}/attributes/${definitionId}`, headers });
    const teamValue = await value(team.id);
    assert.equal(teamValue.statusCode, 200);
    assert.equal(teamValue.json().value, 'Support');
    assert.equal((await value(phone.id)).statusCode, 404);

    await page.getByRole('button', { name: 'Edit helper-admin' }).click();
    assert.equal(await page.getByRole('dialog').getByLabel('Team (required)').inputValue(), 'Support');
    await assertAccessible(page, 'the administrator dialog with attributes');
  });

  test('an administrator with the settings privilege (not a super user) manages definitions too', async () => {
    const s = await h.app.adminWithSession({ superUser: false, privileges: { settings: true } });
    const page = await openSignedIn(h, { key: s.key, id: s.sessionId }, '/admin/administrator-attributes');
    await page.getByRole('row', { name: /Phone/ }).waitFor();
    const menu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.deepEqual(menu, ['Attributes', 'Admin attributes', 'Webhooks', 'Your account']);
  });

  test('screenshots and accessibility: administrator attributes', async () => {
    await screenshots(h, session, 'admin-attributes', '/admin/administrator-attributes', (page) => page.getByRole('row', { name: /Team/ }).waitFor());
    await screenshots(h, session, 'admin-attribute-values', '/admin/administrators', async (page) => {
      await page.getByRole('button', { name: 'Edit helper-admin' }).click();
      await page.getByRole('dialog').getByLabel('Team (required)').waitFor();
    });
  });
});
