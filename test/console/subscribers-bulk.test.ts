import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createList, createSubscriber } from '../factories.js';
import { browserSkip, openSignedIn, screenshotSchemes, screenshots, screenshotsOff, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/*
 * The Subscribers view at scale in real Chromium: every match of a search selected and added to a list with the job's
 * progress to its end, a shift-click range blacklisted with a reason, a deletion confirmed by its count, attribute
 * columns and the attribute filter.
 */
describe('console: subscribers in bulk', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn());
  });
  after(async () => h?.close());
  const open = (path: string) => openSignedIn(h, session, path);
  const api = async (url: string) => (await h.app.inject({ method: 'GET', url, headers })).json();

  test('select all matching → add to a list → progress → done; the list counts them all', async () => {
    await h.app.db.execute(sql`
      insert into subscribers (email, unique_id, confirmed)
      select 'crowd-' || lpad(n::text, 4, '0') || '@crowd.example', md5('crowd' || n), true from generate_series(1, 1100) n`);
    const list = await createList(h.app.db, { name: 'Chosen' });
    const page = await open('/admin/subscribers?q=crowd.example');
    await page.getByText('50 shown of 1,100').waitFor();
    await page.getByLabel('Select all on this page').check();
    const bar = page.getByRole('region', { name: 'Selected subscribers' });
    await bar.getByText('50 subscribers selected').waitFor();
    await bar.getByRole('button', { name: 'Select all 1,100 matching' }).click();
    await bar.getByText('All 1,100 subscribers matching').waitFor();
    await screenshots(h, session, 'subscribers-bulk-selected', '/admin/subscribers?q=crowd.example', async (p) => {
      await p.getByText('50 shown of 1,100').waitFor();
      await p.getByLabel('Select all on this page').check();
      await p.getByRole('button', { name: 'Select all 1,100 matching' }).click();
    });

    await bar.getByRole('button', { name: 'Add to list…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add 1,100 subscribers to a list' });
    await dialog.getByLabel('List').selectOption({ label: 'Chosen' });
    await dialog.getByRole('button', { name: 'Add to list' }).click();
    // More than one batch: a background job, its progress shown until it ends.
    await page.getByRole('status', { name: 'Bulk action in progress' }).or(page.getByText('Added 1,100 subscribers to “Chosen”.')).first().waitFor();
    await page.getByText('Added 1,100 subscribers to “Chosen”.').waitFor({ timeout: 60_000 });
    assert.equal((await api(`/api/v2/lists/${list.id}/subscribers/count`)).subscribers_count, 1100);
    assert.equal(await bar.count(), 0, 'the selection is cleared once the job has started');
    if (!screenshotsOff()) await screenshotSchemes(page, (scheme) => `subscribers-bulk-done-${scheme}-desktop`);
  });

  test('a shift-click range blacklisted with a reason, after a confirmation', async () => {
    for (const name of ['amy', 'ben', 'cat', 'dan']) await createSubscriber(h.app.db, { email: `${name}@range.example`, confirmed: true });
    const page = await open('/admin/subscribers?q=range.example');
    await page.getByText('4 shown of 4').waitFor();
    await page.getByLabel('Select amy@range.example').click();
    await page.getByLabel('Select cat@range.example').click({ modifiers: ['Shift'] });
    const bar = page.getByRole('region', { name: 'Selected subscribers' });
    await bar.getByText('3 subscribers selected').waitFor();
    await bar.getByRole('button', { name: 'Blacklist…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Blacklist 3 subscribers?' });
    await dialog.getByLabel('Reason').fill('Asked by phone');
    const submit = dialog.getByRole('button', { name: 'Blacklist 3 subscribers' });
    assert.equal(await submit.isDisabled(), true, 'not before the confirmation is ticked');
    await dialog.getByLabel('Yes, blacklist 3 subscribers').check();
    if (!screenshotsOff()) await screenshotSchemes(page, (scheme) => `subscribers-bulk-blacklist-${scheme}-desktop`);
    await submit.click();
    await page.getByText('Blacklisted 3 subscribers.').waitFor();
    for (const name of ['amy', 'ben', 'cat']) assert.equal((await api(`/api/v2/blacklist/info/${name}@range.example`)).reason, 'Asked by phone');
    assert.equal((await api('/api/v2/blacklist/check/dan@range.example')).blacklisted, false);
    await page.locator('tbody').getByText('Blacklisted').first().waitFor();
  });

  test('delete asks with the count, then the rows are gone', async () => {
    const kept = await createSubscriber(h.app.db, { email: 'kept@gone.example' });
    const a = await createSubscriber(h.app.db, { email: 'a@gone.example' });
    const b = await createSubscriber(h.app.db, { email: 'b@gone.example' });
    const page = await open('/admin/subscribers?q=gone.example');
    await page.getByText('3 shown of 3').waitFor();
    await page.getByLabel('Select a@gone.example').check();
    await page.getByLabel('Select b@gone.example').check();
    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 2 subscribers?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await h.app.inject({ method: 'GET', url: `/api/v2/subscribers/${a.id}`, headers })).statusCode, 200, 'Cancel deletes nothing');
    await page.getByRole('button', { name: 'Delete…' }).click();
    if (!screenshotsOff()) await screenshotSchemes(page, (scheme) => `subscribers-bulk-delete-${scheme}-desktop`);
    await dialog.getByRole('button', { name: 'Delete 2 subscribers' }).click();
    await page.getByText('Deleted 2 subscribers.').waitFor();
    await page.getByText('1 shown of 1').waitFor();
    for (const s of [a, b]) assert.equal((await h.app.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}`, headers })).statusCode, 404);
    assert.equal((await h.app.inject({ method: 'GET', url: `/api/v2/subscribers/${kept.id}`, headers })).statusCode, 200);
  });

  test('attribute columns are chosen and remembered; the attribute filter searches values', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: { name: 'First name', type: 'textline' } });
    const first = res.json().id as number;
    for (const [email, value] of [
      ['ada@names.example', 'Ada'],
      ['bea@names.example', 'Beatrice'],
    ]) {
      const s = await createSubscriber(h.app.db, { email });
      await h.app.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}/attributes/${first}`, headers, payload: { value } });
    }
    const page = await open('/admin/subscribers?q=names.example');
    await page.getByText('2 shown of 2').waitFor();
    await page.getByRole('button', { name: 'Columns' }).click();
    await page.getByRole('dialog', { name: 'Attribute columns' }).getByLabel('First name').check();
    await page.getByRole('dialog', { name: 'Attribute columns' }).getByRole('button', { name: 'Close' }).click();
    await page.getByRole('columnheader', { name: 'First name' }).waitFor();
    await page.getByRole('cell', { name: 'Beatrice', exact: true }).waitFor();
    const stored = await page.evaluate(() =>
      (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('mailroom.subscribers.columns'),
    );
    assert.equal(stored, JSON.stringify([first]));
    await page.reload();
    await page.getByRole('cell', { name: 'Ada', exact: true }).waitFor();

    await page.getByRole('combobox', { name: /^Attribute/ }).selectOption({ label: 'First name' });
    await page.getByLabel('Value').fill('bea');
    await page.getByText('1 shown of 1').waitFor();
    assert.deepEqual(await page.locator('tbody tr td:first-child').allTextContents(), ['bea@names.example']);
    if (!screenshotsOff()) await screenshotSchemes(page, (scheme) => `subscribers-attribute-columns-${scheme}-desktop`);
  });
});
