import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: lists', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn());
  });
  after(async () => h?.close());

  const open = (path: string) => openSignedIn(h, session, path);

  test('empty state, then create a list, rename it, describe it, make it public', async () => {
    const page = await open('/admin/lists');
    await page.getByText('No lists yet').waitFor();
    await page.getByRole('button', { name: 'New list' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Newsletter');
    await page.getByRole('dialog').getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('heading', { name: 'Newsletter' }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/admin\/lists\/\d+$/);
    await page.getByText('This list has no members yet').waitFor();

    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Monthly letter');
    await dialog.getByLabel('Description').fill('News once a month');
    await dialog.getByLabel('Public').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Monthly letter' }).waitFor();
    await page.getByText('News once a month').waitFor();

    const res = await h.app.inject({ method: 'GET', url: '/api/v2/lists', headers: { 'php-auth-pw': session.key } });
    const lists = (res.json() as { items: { name: string; description: string; public: boolean }[] }).items;
    assert.deepEqual(
      lists.map((l) => [l.name, l.description, l.public]),
      [['Monthly letter', 'News once a month', true]],
    );
  });

  test('the table shows member counts; add members (confirmed or by mail), page through, remove one, delete the list naming its memberships', async () => {
    const list = await createList(h.app.db, { name: 'Big list' });
    for (let i = 0; i < 55; i++) {
      const s = await createSubscriber(h.app.db, { email: `member${String(i).padStart(2, '0')}@example.com`, confirmed: true });
      await subscribe(h.app.db, list.id, s.id);
    }
    const page = await open('/admin/lists');
    const row = page.getByRole('row', { name: /Big list/ });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /55$/);

    await row.getByRole('link', { name: 'Big list' }).click();
    await page.getByTestId('member-count').filter({ hasText: '55' }).waitFor();
    await page.getByText('50 shown of 55').waitFor();
    await page.getByRole('link', { name: 'Next page →' }).click();
    await page.getByText('5 shown of 55').waitFor();
    assert.match(page.url(), /after=\d+/);
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByText('50 shown of 55').waitFor();

    await page.getByRole('button', { name: 'Add members' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/E-mail addresses/)
      .fill('new.one@example.com, new.two@example.com');
    await page.getByRole('dialog').getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('2 people added.').waitFor();
    await page.getByTestId('member-count').filter({ hasText: '57' }).waitFor();

    await page.getByRole('button', { name: 'Add members' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/E-mail addresses/)
      .fill('asked@example.com');
    await page.getByRole('dialog').getByLabel('Sent a confirmation mail').check();
    await page.getByRole('dialog').getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('1 person added.').waitFor();
    const mails = await h.app.smtp.waitFor(1);
    assert.deepEqual(
      mails.map((m) => m.envelope.to),
      [['asked@example.com']],
    );
    assert.match(mails[0]!.parsed.text ?? '', /confirm\?uniqueId=/);

    await page.getByRole('button', { name: 'Remove member00@example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('member00@example.com removed from the list.').waitFor();
    await page.getByTestId('member-count').filter({ hasText: '57' }).waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByText('This deletes the list and its 57 memberships.', { exact: false }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete list' }).click();
    await page.getByRole('heading', { name: 'Lists' }).waitFor();
    await page.getByRole('row', { name: /Monthly letter/ }).waitFor();
    assert.equal(await page.getByRole('row', { name: /Big list/ }).count(), 0);
  });

  test('export a list as CSV', async () => {
    const list = await createList(h.app.db, { name: 'Exported' });
    const s = await createSubscriber(h.app.db, { email: 'exported@example.com', confirmed: true });
    await subscribe(h.app.db, list.id, s.id);
    const page = await open(`/admin/lists/${list.id}`);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    assert.equal(file.suggestedFilename(), 'Exported.csv');
    const path = await file.path();
    const { readFileSync } = await import('node:fs');
    assert.match(readFileSync(path, 'utf8'), /exported@example\.com/);
  });

  test('screenshots and accessibility of the lists and a list page', async () => {
    const list = await createList(h.app.db, { name: 'Screenshot list', description: 'For the pictures' });
    for (let i = 0; i < 3; i++) await subscribe(h.app.db, list.id, (await createSubscriber(h.app.db, { confirmed: i > 0 })).id);
    await screenshots(h, session, 'lists', '/admin/lists', (page) => page.getByRole('row', { name: /Screenshot list/ }).waitFor());
    await screenshots(h, session, 'list', `/admin/lists/${list.id}`, (page) => page.getByText('3 shown of 3').waitFor());
  });
});
