import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { bounces } from '../../src/db/schema/index.js';
import { createAdmin, createBounce, createCampaign, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
let callerId: number;
before(async () => {
  t = await startTestApp();
  const session = await t.adminWithSession();
  headers = session.headers;
  callerId = session.admin.id;
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const DENIED = { message: 'You are not allowed to manage bounces.' };
const get = (url: string, h = headers) => t.inject({ method: 'GET', url, headers: h });

describe('bounces', () => {
  // One scene for the file: the totals are over every bounce.
  let scene: Awaited<ReturnType<typeof build>>;
  async function build() {
    const other = await createAdmin(t.db);
    const mine = await createCampaign(t.db, { subject: 'Mine', ownerId: callerId });
    const ownerless = await createCampaign(t.db, { subject: 'Nobody’s' });
    const theirs = await createCampaign(t.db, { subject: 'Theirs', ownerId: other.id });
    const alice = await createSubscriber(t.db, { email: 'alice@example.com', confirmed: true });
    const bob = await createSubscriber(t.db, { email: 'bob@example.com', blacklisted: true });
    const unlinked = await createBounce(t.db, {
      receivedAt: new Date('2026-02-01T11:30:00Z'),
      status: 'not processed',
      comment: 'Test bounce',
    });
    const b1 = await createBounce(t.db, {
      receivedAt: new Date('2026-02-02T10:00:00Z'),
      status: 'bounced list message',
      campaignId: mine.id,
      subscriberId: alice.id,
      comment: '550 user unknown',
    });
    const b2 = await createBounce(t.db, {
      receivedAt: new Date('2026-02-02T11:00:00Z'),
      status: 'bounced list message',
      campaignId: mine.id,
      subscriberId: bob.id,
    });
    const b3 = await createBounce(t.db, {
      receivedAt: new Date('2026-02-03T11:00:00Z'),
      status: 'bounced list message',
      campaignId: ownerless.id,
      subscriberId: alice.id,
    });
    const b4 = await createBounce(t.db, {
      receivedAt: new Date('2026-02-04T11:00:00Z'),
      status: 'unidentified',
      campaignId: theirs.id,
      subscriberId: alice.id,
    });
    return { mine, ownerless, theirs, alice, bob, unlinked, b1, b2, b3, b4 };
  }
  before(async () => {
    scene = await build();
  });

  test('GET /bounces: whole items, unlinked ones with nulls, cursor pages', async () => {
    const { mine, theirs, alice, bob, unlinked, b1, b2, b4 } = scene;
    const res = await get('/api/v2/bounces?limit=3');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      items: [
        {
          id: unlinked.id,
          status: 'not processed',
          date: '2026-02-01T11:30:00+00:00',
          message_id: null,
          message_subject: null,
          subscriber_id: null,
          subscriber_email: null,
          comment: 'Test bounce',
        },
        {
          id: b1.id,
          status: 'bounced list message',
          date: '2026-02-02T10:00:00+00:00',
          message_id: mine.id,
          message_subject: 'Mine',
          subscriber_id: alice.id,
          subscriber_email: 'alice@example.com',
          comment: '550 user unknown',
        },
        {
          id: b2.id,
          status: 'bounced list message',
          date: '2026-02-02T11:00:00+00:00',
          message_id: mine.id,
          message_subject: 'Mine',
          subscriber_id: bob.id,
          subscriber_email: 'bob@example.com',
          comment: null,
        },
      ],
      pagination: { total: 5, limit: 3, has_more: true, next_cursor: b2.id },
    });
    const next = await get(`/api/v2/bounces?limit=3&after_id=${b2.id}`);
    assert.deepEqual(
      next.json().items.map((b: { id: number }) => b.id),
      [scene.b3.id, b4.id],
    );
    assert.deepEqual(next.json().pagination, { total: 5, limit: 3, has_more: false, next_cursor: b4.id });
    assert.equal(next.json().items[1].message_subject, 'Theirs');
    assert.equal(theirs.id, next.json().items[1].message_id);
  });

  test('GET /bounces?status= filters exactly, trimmed; unknown status is an empty page', async () => {
    const res = await get('/api/v2/bounces?status=%20unidentified%20');
    assert.deepEqual(
      res.json().items.map((b: { id: number }) => b.id),
      [scene.b4.id],
    );
    assert.equal(res.json().pagination.total, 1);
    const none = await get('/api/v2/bounces?status=Unidentified');
    assert.deepEqual(none.json(), { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
  });

  test("GET /bounces?subscriber_id= pages one subscriber's bounces, with status; unknown id is empty; not an id is 422", async () => {
    const { alice, bob, b1, b3, b4 } = scene;
    const first = await get(`/api/v2/bounces?subscriber_id=${alice.id}&limit=2`);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(
      first.json().items.map((b: { id: number; subscriber_id: number }) => [b.id, b.subscriber_id]),
      [
        [b1.id, alice.id],
        [b3.id, alice.id],
      ],
    );
    assert.deepEqual(first.json().pagination, { total: 3, limit: 2, has_more: true, next_cursor: b3.id });
    const next = await get(`/api/v2/bounces?subscriber_id=${alice.id}&limit=2&after_id=${b3.id}`);
    assert.deepEqual(
      next.json().items.map((b: { id: number }) => b.id),
      [b4.id],
    );
    const both = await get(`/api/v2/bounces?subscriber_id=${alice.id}&status=unidentified`);
    assert.deepEqual([both.json().items.map((b: { id: number }) => b.id), both.json().pagination.total], [[b4.id], 1]);
    assert.equal((await get(`/api/v2/bounces?subscriber_id=${bob.id}`)).json().pagination.total, 1);
    const none = await get('/api/v2/bounces?subscriber_id=999999');
    assert.deepEqual(none.json(), { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
    const bad = await get('/api/v2/bounces?subscriber_id=abc');
    assert.deepEqual(
      [bad.statusCode, bad.json()],
      [422, { message: 'Validation failed', errors: { subscriber_id: ['This value should be of type integer.'] } }],
    );
  });

  test('GET /bounces/by/campaign: the caller’s and owner-less campaigns, most bounces first', async () => {
    const res = await get('/api/v2/bounces/by/campaign');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), [
      { message_id: scene.mine.id, subject: 'Mine', total_bounces: 2 },
      { message_id: scene.ownerless.id, subject: 'Nobody’s', total_bounces: 1 },
    ]);
  });

  test('GET /bounces/by/subscriber: most bounces first, with the flags', async () => {
    const res = await get('/api/v2/bounces/by/subscriber');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), [
      { subscriber_id: scene.alice.id, email: 'alice@example.com', confirmed: true, blacklisted: false, total_bounces: 3 },
      { subscriber_id: scene.bob.id, email: 'bob@example.com', confirmed: false, blacklisted: true, total_bounces: 1 },
    ]);
  });

  test('403 without key or the campaigns privilege, on every route', async () => {
    const { headers: other } = await t.adminWithSession({ superUser: false, privileges: { settings: true, subscribers: true } });
    for (const [method, url] of [
      ['GET', '/api/v2/bounces'],
      ['GET', '/api/v2/bounces/by/campaign'],
      ['GET', '/api/v2/bounces/by/subscriber'],
      ['DELETE', `/api/v2/bounces/${scene.b1.id}`],
    ] as const) {
      const none = await t.inject({ method, url });
      assert.deepEqual([none.statusCode, none.json()], [403, NO_SESSION], url);
      const denied = await t.inject({ method, url, headers: other });
      assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED], url);
    }
    const { headers: allowed } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    assert.equal((await get('/api/v2/bounces', allowed)).statusCode, 200);
  });

  test('DELETE /bounces/{id}: 204 and gone; 404 unknown; non-digit id 404', async () => {
    const extra = await createBounce(t.db, { status: 'x' });
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/bounces/${extra.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.deepEqual(await t.db.select().from(bounces).where(eq(bounces.id, extra.id)), []);
    const again = await t.inject({ method: 'DELETE', url: `/api/v2/bounces/${extra.id}`, headers });
    assert.deepEqual([again.statusCode, again.json()], [404, { message: 'Bounce not found.' }]);
    const missing = await t.inject({ method: 'DELETE', url: '/api/v2/bounces/999999', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Bounce not found.' }]);
    const word = await t.inject({ method: 'DELETE', url: '/api/v2/bounces/abc', headers });
    assert.equal(word.statusCode, 404);
    assert.match(word.json().message, /^No route found for "DELETE /);
  });
});
