import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: import people as confirmed', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-import-confirmed-'));
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn());
  });
  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('with “Mark everyone imported as confirmed” the people come in confirmed and nobody is mailed', async () => {
    const path = join(dir, 'confirmed.csv');
    writeFileSync(path, 'email\nsure.one@example.com\nsure.two@example.com\n');
    const page = await openSignedIn(h, session, '/admin/import');
    await page.getByLabel('CSV file').setInputFiles(path);
    await page.getByLabel(/Mark everyone imported as confirmed/).check();
    assert.equal(await page.getByLabel('join without any mail').isDisabled(), true);
    await page.getByRole('button', { name: 'Import' }).click();
    const summary = page.getByRole('region', { name: 'Import summary' });
    await summary.waitFor();
    assert.match((await summary.innerText()).replace(/\s+/g, ' '), /Imported 2 Updated 0 Skipped 0/);
    const res = await h.app.inject({ method: 'GET', url: '/api/v2/subscribers?limit=10', headers });
    const people = (res.json() as { items: { email: string; confirmed: boolean }[] }).items;
    assert.deepEqual(people.map((p) => [p.email, p.confirmed]).sort(), [
      ['sure.one@example.com', true],
      ['sure.two@example.com', true],
    ]);
    assert.equal(h.app.smtp.messages.length, 0);
  });

  test('screenshots and accessibility: import with the confirmed choice', async () => {
    await screenshots(h, session, 'import-confirmed', '/admin/import', (page) => page.getByLabel(/Mark everyone imported as confirmed/).waitFor());
  });
});
