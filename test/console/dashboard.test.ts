import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { campaignCounters } from '../../src/db/schema/index.js';
import { createCampaign, createSubscriber } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: dashboard campaigns', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let winter: Awaited<ReturnType<typeof createCampaign>>;
  let queued: typeof winter;
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn());
    // Every subscriber is new this month: the subscribers' change has a zero base.
    await createSubscriber(h.app.db, { email: 'new@example.com', confirmed: true });
    const sent = await createCampaign(h.app.db, { subject: 'Winter news', status: 'sent', sentAt: new Date() });
    winter = sent;
    await createCampaign(h.app.db, { subject: 'Older news', status: 'sent', sentAt: new Date(Date.now() - 86_400_000) });
    await createCampaign(h.app.db, { subject: 'An idea' });
    queued = await createCampaign(h.app.db, { subject: 'Queued news', status: 'submitted' });
    await h.app.db.insert(campaignCounters).values({ campaignId: sent.id, sent: 1234 });
  });
  after(async () => h?.close());

  test('campaigns by status, and the latest campaigns with their sent counts', async () => {
    const page = await openSignedIn(h, session, '/admin/');
    const byStatus = page.getByRole('list', { name: 'Campaigns by status' });
    await byStatus.waitFor();
    assert.deepEqual(
      (await byStatus.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
      ['draft 1', 'sent 2', 'submitted 1'],
    );
    const row = page.getByRole('row', { name: /Winter news/ });
    assert.match((await row.innerText()).replace(/\s+/g, ' '), /Winter news sent .*1,234 0 \(0\.00%\) 0 \(0\.00%\)/);
    assert.equal(await page.getByRole('row', { name: /An idea/ }).count(), 0);
  });

  test('no percentage change on a zero base: new subscribers say so, rates with nothing before say nothing', async () => {
    const page = await openSignedIn(h, session, '/admin/');
    const totals = page.getByTestId('totals');
    await totals.waitFor();
    const stat = async (label: string) => (await totals.locator('.stat', { hasText: label }).innerText()).split('\n').map((l) => l.trim());
    assert.deepEqual(await stat('Subscribers'), ['Subscribers', '1', 'New this month']);
    // No campaign mails in the 30 days before: no rate to compare with.
    assert.deepEqual(await stat('Open rate (30 days)'), ['Open rate (30 days)', '0%']);
    assert.deepEqual(await stat('Bounce rate (30 days)'), ['Bounce rate (30 days)', '0%']);
    assert.doesNotMatch(await totals.innerText(), /vs last month/);
  });

  test('a latest campaign opens its report when sent, its editor otherwise; its day in the console date format', async () => {
    const page = await openSignedIn(h, session, '/admin/');
    const region = page.getByRole('region', { name: 'Latest campaigns' });
    const row = region.getByRole('row', { name: /Winter news/ });
    await row.waitFor();
    // The console's one format (web/src/ui/dates.ts): "27 Nov 2026", the UTC day the API gives.
    const day = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(winter.sentAt!);
    assert.match(day, /^\d{1,2} [A-Z][a-z]{2,3} \d{4}$/);
    assert.equal((await row.locator('td').nth(2).innerText()).trim(), day);
    assert.equal(await region.getByRole('link', { name: 'Queued news' }).getAttribute('href'), `/admin/campaigns/${queued.id}`);
    await row.getByRole('link', { name: 'Winter news' }).click();
    await page.getByRole('heading', { name: 'Report: Winter news' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/admin/campaigns/${winter.id}/report`);
  });

  test('screenshots and accessibility: dashboard with campaigns', async () => {
    await screenshots(h, session, 'dashboard-campaigns', '/admin/', (page) => page.getByRole('list', { name: 'Campaigns by status' }).waitFor());
  });
});
