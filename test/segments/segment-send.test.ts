import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { campaignSegments, subscriberAttributeValues } from '../../src/db/schema/index.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { parkOtherCampaigns, recipientsOf, sendableCampaign, withWorker } from '../sending/send-fixtures.js';

/*
 * Sending to a segment: `options.user_selection: "segment:<id>"`. Without lists the segment is the audience (among
 * those on some list: the consent rule, docs/api.md "Consent"); with lists it narrows their members. The audience is
 * exactly the matching, confirmed, not blacklisted subscribers, each once, and what arrives in the SMTP sink says so.
 */

let t: TestApp;
let headers: Record<string, string>;
let country: number;
let germany: number;
let listA: number;
let listB: number;
const email: Record<string, string> = {};

before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
  const def = await t.inject({
    method: 'POST',
    url: '/api/v2/attributes',
    headers,
    payload: { name: 'Country', type: 'select', options: [{ name: 'Germany' }, { name: 'France' }] },
  });
  assert.equal(def.statusCode, 201, def.body);
  const body = def.json() as { id: number; options: { id: number; name: string }[] };
  country = body.id;
  germany = body.options.find((o) => o.name === 'Germany')!.id;
  listA = (await createList(t.db)).id;
  listB = (await createList(t.db)).id;
  const people: [string, { confirmed?: boolean; blacklisted?: boolean }, boolean, number[]][] = [
    ['de-a', {}, true, [listA]],
    ['de-ab', {}, true, [listA, listB]],
    ['de-b', {}, true, [listB]],
    ['de-none', {}, true, []],
    ['de-unconfirmed', { confirmed: false }, true, [listA]],
    ['de-blacklisted', { blacklisted: true }, true, [listA]],
    ['fr-a', {}, false, [listA]],
  ];
  for (const [name, flags, german, lists] of people) {
    const s = await createSubscriber(t.db, { email: `${name}@segment.example`, confirmed: true, ...flags });
    email[name] = s.email;
    await t.db.insert(subscriberAttributeValues).values({ subscriberId: s.id, definitionId: country, value: german ? String(germany) : '' });
    for (const l of lists) await subscribe(t.db, l, s.id);
  }
});
after(() => t.close());

async function segment(name: string): Promise<number> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/segments',
    headers,
    payload: { name, definition: { match: 'all', conditions: [{ type: 'attribute', attribute_id: country, op: 'any_of', value: ['Germany'] }] } },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { id: number }).id;
}

async function sendAndDeliver(campaignId: number) {
  const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaignId}/send`, headers });
  assert.equal(res.statusCode, 200, res.body);
  await parkOtherCampaigns(t.db, campaignId);
  await withWorker(t.ctx, { batchSize: 3 }, async (w) => {
    for (let i = 0; i < 10; i++) await w.runOnce();
  });
}

const expected = (...names: string[]) => names.map((n) => email[n]!).sort();

describe('sending to a segment', () => {
  test('a segment alone is the audience: every matching, confirmed, not blacklisted subscriber on some list, once (docs/api.md "Consent": nobody on no list)', async () => {
    const id = await segment('Germans');
    const c = await sendableCampaign(t.db, [], { userSelection: `segment:${id}` });
    await sendAndDeliver(c.id);
    assert.deepEqual(recipientsOf(t.smtp, c.id), expected('de-a', 'de-ab', 'de-b'));
    const view = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}`, headers });
    assert.equal((view.json() as { message_metadata: { status: string } }).message_metadata.status, 'sent');
    assert.equal((view.json() as { message_options: { user_selection: string } }).message_options.user_selection, `segment:${id}`);
  });

  test('with lists, the segment narrows their members; deleting the segment after submitting changes nothing', async () => {
    const id = await segment('Germans on A');
    const c = await sendableCampaign(t.db, [listA], { userSelection: `segment:${id}` });
    const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers });
    assert.equal(res.statusCode, 200, res.body);
    const deleted = await t.inject({ method: 'DELETE', url: `/api/v2/segments/${id}`, headers });
    assert.equal(deleted.statusCode, 204);
    await parkOtherCampaigns(t.db, c.id);
    await withWorker(t.ctx, { batchSize: 3 }, async (w) => {
      for (let i = 0; i < 10; i++) await w.runOnce();
    });
    assert.deepEqual(recipientsOf(t.smtp, c.id), expected('de-a', 'de-ab'));
    const [frozen] = await t.db.select().from(campaignSegments).where(eq(campaignSegments.campaignId, c.id));
    assert.equal(frozen?.narrowsLists, true);
  });

  test('a segment that does not exist: 422 on the campaign, and a send of a campaign whose segment was deleted is refused', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers,
      payload: {
        content: { subject: 'S', text: 'T' },
        format: { send_format: 'text' },
        options: { from_field: 'a@example.com', user_selection: 'segment:999999' },
      },
    });
    assert.equal(created.statusCode, 422, created.body);
    assert.deepEqual((created.json() as { errors: unknown }).errors, {
      'options.user_selection': ['There is no segment with id 999999 (user_selection "segment:999999").'],
    });
    const id = await segment('Short-lived');
    const c = await sendableCampaign(t.db, [], { userSelection: `segment:${id}` });
    await t.inject({ method: 'DELETE', url: `/api/v2/segments/${id}`, headers });
    const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers });
    assert.deepEqual(
      [res.statusCode, res.json()],
      [
        422,
        {
          message: 'Validation failed',
          errors: { 'options.user_selection': [`The campaign's segment ${id} (user_selection "segment:${id}") does not exist any more.`] },
        },
      ],
    );
    // Other user_selection text is phpList's and is kept, meaning nothing.
    const free = await sendableCampaign(t.db, [listB], { userSelection: 'country = de' });
    await sendAndDeliver(free.id);
    assert.deepEqual(recipientsOf(t.smtp, free.id), expected('de-ab', 'de-b'));
  });
});
