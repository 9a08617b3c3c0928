import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { campaignCounters } from '../../src/db/schema/index.js';
import { createCampaign } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsole, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: dashboard campaigns', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  before(async () => {
    h = await startConsole();
    const s = await h.app.adminWithSession();
    session = { key: s.key, id: s.sessionId };
    const sent = await createCampaign(h.app.db, { subject: 'Winter news', status: 'sent', sentAt: new Date() });
    await createCampaign(h.app.db, { subject: 'Older news', status: 'sent', sentAt: new Date(Date.now() - 86_400_000) });
    await createCampaign(h.app.db, { subject: 'An idea' });
    await h.app.db.insert(campaignCounters).values({ campaignId: sent.id, sent: 1234 });
  });
  after(async () => h?.close());

  test('campaigns by status, and the latest campaigns with their sent counts', async () => {
    const page = await openSignedIn(h, session, '/admin/');
    const byStatus = page.getByRole('list', { name: 'Campaigns by status' });
    await byStatus.waitFor();
    assert.deepEqual(
      (await byStatus.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
      ['draft 1', 'sent 2'],
    );
    const row = page.getByRole('row', { name: /Winter news/ });
    assert.match((await row.innerText()).replace(/\s+/g, ' '), /Winter news sent .*1,234 0 \(0\.00%\) 0 \(0\.00%\)/);
    assert.equal(await page.getByRole('row', { name: /An idea/ }).count(), 0);
  });

  test('screenshots and accessibility: dashboard with campaigns', async () => {
    await screenshots(h, session, 'dashboard-campaigns', '/admin/', (page) => page.getByRole('list', { name: 'Campaigns by status' }).waitFor());
  });
});
