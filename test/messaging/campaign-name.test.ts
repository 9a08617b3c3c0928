import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { campaigns } from '../../src/db/schema/index.js';
import { createCampaign } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * Issue 26: a campaign's name apart from its subject (ours, additive). phpList clients never send `name`; they
 * still create and update campaigns as before, and a name given once survives their updates.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

function body(content: Record<string, unknown> = {}) {
  return {
    content: { subject: 'Hello [FIRST NAME%%you]', text: '<p>Hi</p>', ...content },
    format: { send_format: 'html' },
    options: { from_field: 'News <news@example.com>' },
  };
}

async function post(payload: object) {
  return t.inject({ method: 'POST', url: '/api/v2/campaigns', headers, payload });
}

describe('campaign name', () => {
  test('given at creation: kept apart from the subject, trimmed', async () => {
    const res = await post(body({ name: '  November newsletter ' }));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().message_content.subject, 'Hello [FIRST NAME%%you]');
    assert.equal(res.json().message_content.name, 'November newsletter');
    const read = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${res.json().id}`, headers });
    assert.equal(read.json().message_content.name, 'November newsletter');
  });

  test('left out at creation (a phpList client): the subject', async () => {
    const res = await post(body());
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().message_content.name, 'Hello [FIRST NAME%%you]');
  });

  test('an update without name keeps it; with name changes it', async () => {
    const id = (await post(body({ name: 'Winter sale' }))).json().id;
    const keep = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${id}`, headers, payload: body({ subject: 'New subject' }) });
    assert.equal(keep.statusCode, 200, keep.body);
    assert.deepEqual([keep.json().message_content.subject, keep.json().message_content.name], ['New subject', 'Winter sale']);
    const change = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${id}`, headers, payload: body({ name: 'Spring sale' }) });
    assert.equal(change.json().message_content.name, 'Spring sale');
  });

  test('blank or too long → 422 naming content.name; nothing written', async () => {
    const blank = await post(body({ name: '   ' }));
    assert.equal(blank.statusCode, 422);
    assert.deepEqual(Object.keys(blank.json().errors), ['content.name']);
    const long = await post(body({ name: 'x'.repeat(256) }));
    assert.equal(long.statusCode, 422);
    assert.deepEqual(Object.keys(long.json().errors), ['content.name']);
    const wrongType = await post(body({ name: 12 }));
    assert.equal(wrongType.statusCode, 422);
  });

  test('a campaign made before names existed answers null, and its copy too', async () => {
    const old = await createCampaign(t.db, { subject: 'Old one' });
    const read = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${old.id}`, headers });
    assert.equal(read.json().message_content.name, null);
  });

  test('a copy keeps the name', async () => {
    const id = (await post(body({ name: 'Copied' }))).json().id;
    const copy = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${id}/copy`, headers });
    assert.equal(copy.statusCode, 201, copy.body);
    assert.equal(copy.json().message_content.name, 'Copied');
  });

  test('the list filter matches the name as well as the subject', async () => {
    await post(body({ subject: 'Plain subject', name: 'Zebra findable' }));
    const res = await t.inject({ method: 'GET', url: '/api/v2/campaigns?subject=zebra', headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      res.json().items.map((c: { message_content: { name: string } }) => c.message_content.name),
      ['Zebra findable'],
    );
  });

  test('dashboard and analytics carry the name; an unnamed campaign is called by its subject on the dashboard', async () => {
    const named = (await post(body({ name: 'Dash named' }))).json().id as number;
    await createCampaign(t.db, { subject: 'Unnamed [FIRST NAME]', status: 'sent', sentAt: new Date() });
    // Analytics count campaigns sent or sending; a draft cannot be made sent over the API (409), so as the sender would.
    await t.db.update(campaigns).set({ status: 'sent', sentAt: new Date() }).where(eq(campaigns.id, named));
    const dash = await t.inject({ method: 'GET', url: '/api/v2/analytics/dashboard', headers });
    assert.equal(dash.statusCode, 200, dash.body);
    const names = dash.json().recent_campaigns.map((c: { name: string }) => c.name);
    assert.ok(names.includes('Unnamed [FIRST NAME]'), names.join(', '));
    const stats = await t.inject({ method: 'GET', url: '/api/v2/analytics/campaigns?limit=100', headers });
    const row = stats.json().items.find((c: { campaign_id: number }) => c.campaign_id === named);
    assert.equal(row.name, 'Dash named');
    const opens = await t.inject({ method: 'GET', url: '/api/v2/analytics/view-opens?limit=100', headers });
    assert.equal(opens.json().items.find((c: { campaign_id: number }) => c.campaign_id === named).name, 'Dash named');
  });
});
