import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

const DAY = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('GET /api/v2/analytics/subscribers/growth', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('totals, and new subscribers per UTC day over the window with the running total, oldest first', async () => {
    const now = Date.now();
    await createSubscriber(t.db, { createdAt: new Date(now - 100 * DAY), confirmed: true });
    await createSubscriber(t.db, { createdAt: new Date(now - 2 * DAY), confirmed: true, blacklisted: true });
    await createSubscriber(t.db, { createdAt: new Date(now) });
    await createSubscriber(t.db, { createdAt: new Date(now), confirmed: true });
    const { headers } = await t.adminWithSession();
    const res = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth?days=3', headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      totals: { subscribers: 4, confirmed: 3, blacklisted: 1 },
      days: [
        { date: utcDay(now - 2 * DAY), new: 1, total: 2 },
        { date: utcDay(now - DAY), new: 0, total: 2 },
        { date: utcDay(now), new: 2, total: 4 },
      ],
    });
    const fallback = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth', headers });
    assert.equal((fallback.json() as { days: unknown[] }).days.length, 90);
  });

  test('needs the statistics privilege, and days within 1..366', async () => {
    const { headers } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const denied = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth', headers });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to access statistics.' });
    const admin = await t.adminWithSession();
    const bad = await t.inject({ method: 'GET', url: '/api/v2/analytics/subscribers/growth?days=0', headers: admin.headers });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /days/);
  });
});
