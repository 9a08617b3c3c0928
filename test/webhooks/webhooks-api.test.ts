import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, ATOM, type TestApp } from '../helper.js';
import { webhookEndpoints } from '../../src/db/schema/index.js';
import { startReceiver, type Receiver } from './receiver.js';

/* /api/v2/webhooks: CRUD, validation, the SSRF refusal, privileges, the ping. Private addresses refused (default). */

let t: TestApp;
let headers: Record<string, string>;
let receiver: Receiver;
before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession()).headers;
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

const invalid = (errors: Record<string, string[]>) => ({ message: 'Validation failed', errors });
const post = (payload: unknown, h = headers) => t.inject({ method: 'POST', url: '/api/v2/webhooks', headers: h, payload: payload as object });
const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const PUBLIC = 'https://93.184.215.14/hooks/mailroom';
const REFUSED = 'The url must resolve to public addresses only: loopback, private and link-local addresses are refused.';

describe('webhooks API', () => {
  test('create answers the secret once; get, list, update, rotate and delete', async () => {
    const res = await post({ url: PUBLIC, events: ['subscriber.created', 'bounce.recorded'] });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created, {
      id: created.id,
      url: PUBLIC,
      events: ['subscriber.created', 'bounce.recorded'],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      created_at: created.created_at,
      updated_at: created.updated_at,
      secret: created.secret,
    });
    assert.match(created.created_at, ATOM);

    const got = await t.inject({ method: 'GET', url: `/api/v2/webhooks/${created.id}`, headers });
    assert.equal(got.statusCode, 200);
    const { secret: _secret, ...shown } = created;
    assert.deepEqual(got.json(), shown);
    const list = await t.inject({ method: 'GET', url: '/api/v2/webhooks', headers });
    assert.deepEqual(
      list.json().find((w: { id: number }) => w.id === created.id),
      shown,
    );

    const patched = await t.inject({
      method: 'PATCH',
      url: `/api/v2/webhooks/${created.id}`,
      headers,
      payload: { events: ['campaign.finished'], enabled: false },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual([patched.json().events, patched.json().enabled, patched.json().url], [['campaign.finished'], false, PUBLIC]);

    const rotated = await t.inject({ method: 'POST', url: `/api/v2/webhooks/${created.id}/secret`, headers });
    assert.equal(rotated.statusCode, 200);
    assert.match(rotated.json().secret, /^whsec_/);
    assert.notEqual(rotated.json().secret, created.secret);

    const deleted = await t.inject({ method: 'DELETE', url: `/api/v2/webhooks/${created.id}`, headers });
    assert.equal(deleted.statusCode, 204);
    const gone = await t.inject({ method: 'GET', url: `/api/v2/webhooks/${created.id}`, headers });
    assert.deepEqual([gone.statusCode, gone.json()], [404, { message: 'Webhook endpoint not found.' }]);
  });

  test('a given secret must have the specification’s form', async () => {
    const good = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    assert.equal((await post({ url: PUBLIC, events: ['subscriber.created'], secret: good })).json().secret, good);
    const bad = await post({ url: PUBLIC, events: ['subscriber.created'], secret: 'hunter2' });
    assert.deepEqual([bad.statusCode, bad.json()], [422, invalid({ secret: ['The secret must be "whsec_" followed by 24 to 64 bytes in base64.'] })]);
  });

  test('unknown event types, no events and bad URLs are 422 with the field', async () => {
    const unknown = await post({ url: PUBLIC, events: ['subscriber.created', 'subscriber.exploded'] });
    assert.equal(unknown.statusCode, 422);
    assert.equal(unknown.json().message, 'Validation failed');
    assert.deepEqual(Object.keys(unknown.json().errors), ['events[1]']);
    const none = await post({ url: PUBLIC, events: [] });
    assert.equal(none.statusCode, 422);
    assert.deepEqual(Object.keys(none.json().errors), ['events']);
    for (const [url, message] of [
      ['not a url', 'The url must be an absolute http or https URL.'],
      ['ftp://93.184.215.14/x', 'The url must be an http or https URL.'],
      ['https://user:pw@93.184.215.14/x', 'The url must not carry a user name or password.'],
    ]) {
      const res = await post({ url, events: ['subscriber.created'] });
      assert.deepEqual([res.statusCode, res.json()], [422, invalid({ url: [message!] })], url);
    }
  });

  test('loopback, private and link-local URLs are refused (SSRF), on create and on update', async () => {
    for (const url of [
      receiver.url,
      'http://localhost:8080/x',
      'http://10.1.2.3/x',
      'http://192.168.1.1/x',
      'http://172.16.0.9/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/x',
      'http://[fe80::1]/x',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      const res = await post({ url, events: ['subscriber.created'] });
      assert.deepEqual([res.statusCode, res.json()], [422, invalid({ url: [REFUSED] })], url);
    }
    const ok = (await post({ url: PUBLIC, events: ['subscriber.created'] })).json();
    const moved = await t.inject({ method: 'PATCH', url: `/api/v2/webhooks/${ok.id}`, headers, payload: { url: 'http://127.0.0.1/x' } });
    assert.deepEqual([moved.statusCode, moved.json()], [422, invalid({ url: [REFUSED] })]);
    const count = await t.inject({ method: 'GET', url: '/api/v2/webhooks', headers });
    assert.ok(count.json().every((w: { url: string }) => !w.url.includes('127.0.0.1')));
  });

  test('the settings privilege is needed; no session is 403 as everywhere in the API', async () => {
    const other = await t.adminWithSession({ superUser: false, privileges: { subscribers: true, campaigns: true, statistics: true } });
    const settings = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const denied = { message: 'You are not allowed to manage webhooks.' };
    for (const [method, url] of [
      ['GET', '/api/v2/webhooks'],
      ['POST', '/api/v2/webhooks'],
      ['GET', '/api/v2/webhooks/1'],
      ['PATCH', '/api/v2/webhooks/1'],
      ['DELETE', '/api/v2/webhooks/1'],
      ['POST', '/api/v2/webhooks/1/secret'],
      ['GET', '/api/v2/webhooks/1/deliveries'],
      ['POST', '/api/v2/webhooks/1/test'],
    ] as const) {
      const res = await t.inject({ method, url, headers: other.headers, payload: method === 'POST' || method === 'PATCH' ? {} : undefined });
      assert.deepEqual([res.statusCode, res.json()], [403, denied], `${method} ${url}`);
      const anonymous = await t.inject({ method, url });
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, NO_SESSION], `${method} ${url}`);
    }
    const allowed = await post({ url: PUBLIC, events: ['subscriber.created'] }, settings.headers);
    assert.equal(allowed.statusCode, 201);
  });

  test('deliveries of an unknown endpoint are 404; a bad status filter is 422', async () => {
    const missing = await t.inject({ method: 'GET', url: '/api/v2/webhooks/999999/deliveries', headers });
    assert.equal(missing.statusCode, 404);
    const ok = (await post({ url: PUBLIC, events: ['subscriber.created'] })).json();
    const bad = await t.inject({ method: 'GET', url: `/api/v2/webhooks/${ok.id}/deliveries?status=lost`, headers });
    assert.equal(bad.statusCode, 422);
    const empty = await t.inject({ method: 'GET', url: `/api/v2/webhooks/${ok.id}/deliveries`, headers });
    assert.deepEqual(empty.json(), { items: [], pagination: { limit: 25, has_more: false, next_cursor: null } });
  });
});

describe('the ping', () => {
  test('refuses a private address at delivery time too (DNS may have changed)', async () => {
    // Registered while allowed (as if the name pointed elsewhere then), pinged while not.
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const [row] = await t.db
      .insert(webhookEndpoints)
      .values({ url: receiver.url, events: ['subscriber.created'], secret })
      .returning();
    const res = await t.inject({ method: 'POST', url: `/api/v2/webhooks/${row!.id}/test`, headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      { ...(res.json() as object), webhook_id: 'x' },
      {
        webhook_id: 'x',
        delivered: false,
        status: null,
        error: 'The endpoint does not resolve to public addresses only.',
      },
    );
    assert.equal(receiver.received.length, 0);
  });
});
