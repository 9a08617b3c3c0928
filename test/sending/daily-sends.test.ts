import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { campaignDailySends } from '../../src/db/schema/index.js';
import { startTestApp, type TestApp } from '../helper.js';
import { listWithMembers, parkOtherCampaigns, sendableCampaign, withWorker } from './send-fixtures.js';

/*
 * campaign_daily_sends, the rollup behind the dashboard's sends per day: a real send through the SMTP sink moves it
 * in the statement that records the outcomes, and GET /analytics/dashboard reads it back per UTC day.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

describe('sends per day', () => {
  test("a send adds its deliveries to today's row, and the dashboard shows them", async () => {
    const { list } = await listWithMembers(t.db, 5, { prefix: 'daily' });
    const c = await sendableCampaign(t.db, [list.id]);
    await parkOtherCampaigns(t.db, c.id);
    assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers })).statusCode, 200);
    await withWorker(t.ctx, { batchSize: 2 }, async (worker) => {
      for (let i = 0; i < 10 && t.smtp.messages.length < 5; i++) await worker.runOnce();
    });
    assert.equal(t.smtp.messages.length, 5);

    const today = new Date().toISOString().slice(0, 10);
    const rows = await t.db.select().from(campaignDailySends).where(eq(campaignDailySends.campaignId, c.id));
    // Three batches (2 + 2 + 1) added to one row.
    assert.deepEqual(rows, [{ campaignId: c.id, day: today, sent: 5, failed: 0 }]);

    const res = await t.inject({ method: 'GET', url: '/api/v2/analytics/dashboard', headers });
    assert.equal(res.statusCode, 200);
    const days = res.json().sends_per_day as { date: string; sent: number; failed: number }[];
    assert.equal(days.length, 30);
    assert.deepEqual(days.at(-1), { date: today, sent: 5, failed: 0 });
    assert.ok(days.slice(0, -1).every((d) => d.sent === 0 && d.failed === 0));
  });
});
