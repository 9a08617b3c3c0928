import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createList } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: import', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-import-'));
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn());
    const res = await h.app.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: { name: 'City', type: 'textline' } });
    assert.equal(res.statusCode, 201);
  });
  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('columns detected and mapped (unknown ones shown), progress while uploading, then the summary with rejected rows', async () => {
    const list = await createList(h.app.db, { name: 'Imported people' });
    // Big enough that the throttled upload shows its progress for a while.
    const rows = ['email;Stadt;shoe size;password'];
    for (let i = 0; i < 20_000; i++) rows.push(`person${i}@example.com;Oslo;${i % 50};secret`);
    rows.push('not-an-address;Paris;1;x');
    const path = join(dir, 'people.csv');
    writeFileSync(path, rows.join('\n'));

    const page = await openSignedIn(h, session, '/admin/import');
    await page.getByLabel('CSV file').setInputFiles(path);
    const columns = page.getByRole('table', { name: 'Columns found' });
    await columns.waitFor();
    const chosen = () =>
      columns
        .locator('select')
        .evaluateAll((menus) => menus.map((m) => (m as unknown as { selectedOptions: { text: string }[] }).selectedOptions[0]!.text));
    // Guessed from the names: no attribute is called "Stadt", so it is not imported until mapped.
    assert.deepEqual(await chosen(), ['E-mail address', 'Don’t import', 'Don’t import', 'Don’t import']);
    await columns.getByRole('combobox', { name: 'Stadt' }).selectOption({ label: 'Attribute: City' });
    assert.deepEqual(await chosen(), ['E-mail address', 'Attribute: City', 'Don’t import', 'Don’t import']);
    await page.getByLabel('Add everyone to list').selectOption({ label: 'Imported people' });
    await page.getByLabel('join without any mail').check();

    // Held back a moment on its way to the service, so the progress display can be seen.
    await page.route('**/api/v2/subscribers/import*', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('progressbar').first().waitFor();
    assert.match(await page.locator('form').innerText(), /Uploading and writing rows: \d+%|Writing the last rows…/);
    // The page answers while the import runs.
    assert.equal(await page.evaluate(() => 1 + 1), 2);

    const summary = page.getByRole('region', { name: 'Import summary' });
    await summary.waitFor({ timeout: 60_000 });
    assert.match((await summary.innerText()).replace(/\s+/g, ' '), /Imported 20,000 Updated 0 Skipped 1 Rejected rows 1/);
    await summary.getByText('Line 20002: Invalid email: not-an-address', { exact: false }).waitFor();
    const download = page.waitForEvent('download');
    await summary.getByRole('button', { name: 'Download the report (CSV)' }).click();
    const report = readFileSync(await (await download).path(), 'utf8');
    assert.equal(
      report,
      'email,Stadt,shoe size,password,line,outcome,reason\r\nnot-an-address,Paris,1,x,20002,rejected,Invalid email: not-an-address\r\n',
    );

    const count = await h.app.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers/count`, headers });
    assert.deepEqual(count.json(), { subscribers_count: 20_000 });
    assert.equal(h.app.smtp.messages.length, 0);
  });

  test("new subscribers' mail format: HTML preselected (SUBSCRIBER_HTML_DEFAULT), the text version only when chosen", async () => {
    for (const [name, html] of [
      ['format-html', true],
      ['format-text', false],
    ] as const) {
      const path = join(dir, `${name}.csv`);
      writeFileSync(path, `email\n${name}@example.com\n`);
      const page = await openSignedIn(h, session, '/admin/import');
      await page.getByLabel('CSV file').setInputFiles(path);
      await page.getByRole('table', { name: 'Columns found' }).waitFor();
      assert.equal(await page.getByLabel('HTML mail', { exact: true }).isChecked(), true);
      if (!html) await page.getByLabel('the text version only').check();
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByRole('region', { name: 'Import summary' }).waitFor();
      const found = await h.app.inject({ method: 'GET', url: `/api/v2/subscribers?find_column=email&find_value=${name}@`, headers });
      const [subscriber] = (found.json() as { items: { email: string; html_email: boolean }[] }).items;
      assert.deepEqual([subscriber?.email, subscriber?.html_email], [`${name}@example.com`, html]);
    }
  });

  test('a file without an email column is refused before uploading', async () => {
    const path = join(dir, 'bad.csv');
    writeFileSync(path, 'name,city\nAda,Oslo\n');
    const page = await openSignedIn(h, session, '/admin/import');
    await page.getByLabel('CSV file').setInputFiles(path);
    await page.getByText('Choose the column that holds the e-mail address: the import needs one.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Import' }).isDisabled(), true);
  });

  test('screenshots and accessibility of the import page with its column table', async () => {
    const path = join(dir, 'few.csv');
    writeFileSync(path, 'email,City,confirmed\na@example.com,Oslo,1\n');
    await screenshots(h, session, 'import', '/admin/import', async (page) => {
      await page.getByLabel('CSV file').setInputFiles(path);
      await page.getByRole('table', { name: 'Columns found' }).waitFor();
    });
  });
});
