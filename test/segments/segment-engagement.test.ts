import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { deliveries } from '../../src/db/schema/index.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * "Any campaign" engagement reads subscriber_engagement (src/db/routines/055_subscriber_engagement.sql), kept by
 * triggers on deliveries: these follow what writes them — the open pixel through the tracking flush, a first click, a
 * campaign deleted — and check the segment answers as the delivery records say.
 */

let t: TestApp;
let headers: Record<string, string>;
const DAY = 86_400_000;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

async function matching(condition: Record<string, unknown>, ids: readonly number[]): Promise<number[]> {
  const definition = { match: 'all', conditions: [{ type: 'engagement', ...condition }] };
  const page = await t.inject({ method: 'POST', url: '/api/v2/segments/subscribers', headers, payload: { definition, limit: 100 } });
  assert.equal(page.statusCode, 200, page.body);
  const count = await t.inject({ method: 'POST', url: '/api/v2/segments/count', headers, payload: { definition } });
  const found = (page.json() as { items: { id: number }[] }).items.map((i) => i.id).filter((id) => ids.includes(id));
  // Only this file's subscribers exist in its database, so the count is theirs too.
  assert.equal((count.json() as { count: number }).count, found.length);
  return found;
}

describe('segments: engagement on any campaign follows the delivery records', () => {
  test('an open through the pixel and the flush, a click, and a deleted campaign', async () => {
    const longAgo = new Date(Date.now() - 200 * DAY);
    const [reader, quiet] = [await createSubscriber(t.db, { confirmed: true }), await createSubscriber(t.db, { confirmed: true })];
    const ids = [reader.id, quiet.id];
    const old = await createCampaign(t.db, { status: 'sent' });
    for (const s of [reader, quiet]) await createDelivery(t.db, old.id, s.id, { sentAt: longAgo });

    assert.deepEqual(await matching({ action: 'sent' }, ids), ids);
    assert.deepEqual(await matching({ action: 'sent', within_last_days: 30 }, ids), []);
    assert.deepEqual(await matching({ action: 'opened' }, ids), []);
    assert.deepEqual(await matching({ action: 'opened', negate: true }, ids), ids);

    // A person's open, long after the mail was sent (not the timing rule's machine).
    const pixel = await t.inject({ method: 'GET', url: `/t/open.gif?u=${reader.uniqueId}&m=${old.id}`, headers: { 'user-agent': BROWSER } });
    assert.equal(pixel.statusCode, 200);
    await t.ctx.events.flush();
    assert.deepEqual(await matching({ action: 'opened', within_last_days: 1 }, ids), [reader.id]);
    assert.deepEqual(await matching({ action: 'opened', negate: true }, ids), [quiet.id]);
    assert.deepEqual(await matching({ action: 'clicked' }, ids), []);

    // A newer campaign, to the quiet one only, who opens and clicks in it.
    const fresh = await createCampaign(t.db, { status: 'sent' });
    const delivery = await createDelivery(t.db, fresh.id, quiet.id, { sentAt: longAgo });
    assert.deepEqual(await matching({ action: 'sent', within_last_days: 30 }, ids), []);
    await t.inject({ method: 'GET', url: `/t/open.gif?u=${quiet.uniqueId}&m=${fresh.id}`, headers: { 'user-agent': BROWSER } });
    await t.ctx.events.flush();
    assert.deepEqual(await matching({ action: 'opened', within_last_days: 1 }, ids), ids);
    // A first click as the flush records it: the record's first_clicked_at.
    await t.db.update(deliveries).set({ firstClickedAt: new Date() }).where(eq(deliveries.id, delivery.id));
    assert.deepEqual(await matching({ action: 'clicked', within_last_days: 1 }, ids), [quiet.id]);

    // The first campaign deleted: its records go, and so does what only they said.
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${old.id}`, headers });
    assert.ok(res.statusCode < 300, res.body);
    assert.deepEqual(await matching({ action: 'sent' }, ids), [quiet.id]);
    assert.deepEqual(await matching({ action: 'opened' }, ids), [quiet.id]);
    assert.deepEqual(await matching({ action: 'opened', negate: true }, ids), [reader.id]);
  });
});
