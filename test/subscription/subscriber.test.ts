import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { lists, subscriberHistory, subscriptions } from '../../src/db/schema/index.js';
import { createList, createSubscriber } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
let login: string;
before(async () => {
  t = await startTestApp();
  const session = await t.adminWithSession({ privileges: { subscribers: true } });
  headers = { ...session.headers, 'user-agent': 'subscriber-test' };
  login = session.admin.loginName;
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };

/** The expected whole body of a subscriber, built from what the response says for the generated parts. */
function expectSubscriber(body: Record<string, unknown>, fields: Record<string, unknown>) {
  return {
    id: body.id,
    email: fields.email,
    created_at: atom(body.created_at),
    updated_at: atom(body.updated_at),
    confirmed: true,
    blacklisted: false,
    bounce_count: 0,
    unique_id: body.unique_id,
    uuid: '',
    html_email: false,
    disabled: false,
    subscribed_lists: [],
    history: [],
    ...fields,
  };
}

async function withoutPrivilege() {
  return (await t.adminWithSession({ superUser: false, privileges: { campaigns: true, settings: true } })).headers;
}

describe('POST /api/v2/subscribers', () => {
  test('creates a confirmed subscriber; other fields are ignored; history records it', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers,
      payload: { email: 'new.one@example.com', requestConfirmation: false, blacklisted: true, htmlEmail: true, disabled: true },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(Object.keys(body), [
      'id',
      'email',
      'created_at',
      'updated_at',
      'confirmed',
      'blacklisted',
      'bounce_count',
      'unique_id',
      'uuid',
      'html_email',
      'disabled',
      'subscribed_lists',
      'history',
    ]);
    assert.match(body.unique_id, /^[0-9a-f]{32}$/);
    const entries = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, body.id));
    assert.deepEqual(body, expectSubscriber(body, { email: 'new.one@example.com', html_email: true }));
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.summary, 'Subscriber created');
    assert.equal(entries[0]?.detail, `Created by ${login}`);
    assert.equal(entries[0]?.systemInfo, 'User-Agent: subscriber-test');
    assert.equal(t.smtp.messages.length, 0, 'no mail without request_confirmation');
  });

  test('html_email defaults to false and the subscriber is confirmed without request_confirmation', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email: 'plain@example.com' } });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, expectSubscriber(body, { email: 'plain@example.com' }));
  });

  test('an address already used, in any case, is 409', async () => {
    await createSubscriber(t.db, { email: 'oliver@example.com' });
    for (const email of ['oliver@example.com', 'Oliver@EXAMPLE.com']) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email } });
      assert.equal(res.statusCode, 409, email);
      assert.deepEqual(res.json(), { message: 'Email already exists.' });
    }
  });

  test('missing, blank and invalid e-mail addresses are 422', async () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { email: ['This value should not be blank.'] }],
      [{ email: '' }, { email: ['This value is not a valid email address.'] }],
      [{ email: 'coffee and cigarettes' }, { email: ['This value is not a valid email address.'] }],
    ];
    for (const [payload, errors] of cases) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: payload as object });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, JSON.stringify(payload));
    }
  });

  test('wrong JSON types are 422 on the field', async () => {
    const cases: [object, Record<string, string[]>][] = [
      [{ email: null }, { email: ['This value should not be null.'] }],
      [{ email: true }, { email: ['This value should be of type string.'] }],
      [{ email: 'a@example.com', htmlEmail: 1 }, { html_email: ['This value should be of type boolean.'] }],
      [{ email: 'a@example.com', html_email: 'yes' }, { html_email: ['This value should be of type boolean.'] }],
      [{ email: 'a@example.com', requestConfirmation: 'needed' }, { request_confirmation: ['This value should be of type boolean.'] }],
    ];
    for (const [payload, errors] of cases) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, JSON.stringify(payload));
    }
  });

  test('malformed JSON is 400', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /^Invalid JSON: /);
  });

  test('without a session or without the privilege it is 403, before the body is read', async () => {
    const none = await t.inject({ method: 'POST', url: '/api/v2/subscribers', payload: { email: 'x@example.com' } });
    assert.equal(none.statusCode, 403);
    assert.deepEqual(none.json(), NO_SESSION);
    const denied = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers: await withoutPrivilege(), payload: {} });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to create subscribers.' });
  });
});

describe('GET /api/v2/subscribers/{subscriberId}', () => {
  test('answers the subscriber with lists in subscription order and history oldest first', async () => {
    const created = (
      await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email: 'full@example.com', html_email: true } })
    ).json();
    const news = await createList(t.db, {
      name: 'News',
      description: 'News (and some fun stuff)',
      listPosition: 12,
      subjectPrefix: 'phpList',
      category: 'news',
    });
    const other = await createList(t.db, { name: 'Other', isPublic: false });
    await t.db.insert(subscriptions).values({ listId: other.id, subscriberId: created.id, createdAt: new Date('2026-01-01T00:00:00Z') });
    await t.db.insert(subscriptions).values({ listId: news.id, subscriberId: created.id, createdAt: new Date('2026-01-02T00:00:00Z') });
    await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${created.id}`, headers, payload: { email: 'full@example.com', disabled: true } });

    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${created.id}`, headers });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.ok(body.history[0].id < body.history[1].id);
    assert.deepEqual(body, {
      ...expectSubscriber(body, { email: 'full@example.com', html_email: true, disabled: true }),
      subscribed_lists: [
        {
          id: other.id,
          name: 'Other',
          created_at: atom(body.subscribed_lists[0].created_at),
          description: null,
          list_position: null,
          subject_prefix: null,
          public: false,
          category: '',
          rss_feed: null,
        },
        {
          id: news.id,
          name: 'News',
          created_at: atom(body.subscribed_lists[1].created_at),
          description: 'News (and some fun stuff)',
          list_position: 12,
          subject_prefix: 'phpList',
          public: true,
          category: 'news',
          rss_feed: null,
        },
      ],
      history: [
        {
          id: body.history[0].id,
          ip: '127.0.0.1',
          created_at: atom(body.history[0].created_at),
          summary: 'Subscriber created',
          detail: `Created by ${login}`,
          system_info: 'User-Agent: subscriber-test',
        },
        {
          id: body.history[1].id,
          ip: '127.0.0.1',
          created_at: atom(body.history[1].created_at),
          summary: `Update by ${login}`,
          detail: 'disabled = true *changed* from false',
          system_info: 'User-Agent: subscriber-test',
        },
      ],
    });
  });

  test('unknown id is 404, non-numeric id is the route 404', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/subscribers/999999', headers });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { message: 'Subscriber not found.' });
    const bad = await t.inject({ method: 'GET', url: '/api/v2/subscribers/abc', headers });
    assert.equal(bad.statusCode, 404);
    assert.match(bad.json().message, /^No route found for "GET http:\/\/.+\/api\/v2\/subscribers\/abc"$/);
  });

  test('needs a session and the subscribers privilege', async () => {
    const s = await createSubscriber(t.db);
    const none = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}` });
    assert.equal(none.statusCode, 403);
    assert.deepEqual(none.json(), NO_SESSION);
    const missing = await t.inject({ method: 'GET', url: '/api/v2/subscribers/999999' });
    assert.equal(missing.statusCode, 403, 'authentication before the 404');
    const denied = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}`, headers: await withoutPrivilege() });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to view subscribers.' });
  });
});

describe('PUT /api/v2/subscribers/{subscriberId}', () => {
  test('blacklisting through PUT writes the blacklist entry, and un-blacklisting removes it (one store)', async () => {
    const s = await createSubscriber(t.db, { email: 'Flagged@Example.com' });
    const put = (blacklisted: boolean) =>
      t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload: { email: s.email, blacklisted } });
    assert.equal((await put(true)).statusCode, 200);
    const check = await t.inject({ method: 'GET', url: '/api/v2/blacklist/check/flagged@example.com', headers });
    assert.deepEqual(check.json(), { blacklisted: true, reason: 'Blacklisted by an administrator' });
    const info = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/flagged@example.com', headers });
    assert.equal(info.statusCode, 200);
    assert.equal(info.json().email, 'Flagged@Example.com');
    assert.equal((await put(false)).statusCode, 200);
    const after = await t.inject({ method: 'GET', url: '/api/v2/blacklist/check/flagged@example.com', headers });
    assert.deepEqual(after.json(), { blacklisted: false, reason: null });
  });

  test('changes the e-mail and the flags sent, keeps the others, refreshes updated_at and writes history', async () => {
    const s = await createSubscriber(t.db, {
      email: 'before@example.com',
      confirmed: false,
      htmlEmail: true,
      bounceCount: 3,
      updatedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/subscribers/${s.id}`,
      headers,
      payload: { email: 'after@example.com', confirmed: true, blacklisted: null, disabled: false, id: 77 },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.notEqual(body.updated_at, '2026-01-01T00:00:00+00:00');
    assert.deepEqual(body, {
      ...expectSubscriber(body, { email: 'after@example.com', html_email: true, bounce_count: 3 }),
      id: s.id,
      unique_id: s.uniqueId,
    });
    const entries = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, s.id));
    assert.deepEqual(
      entries.map((e) => [e.summary, e.detail]),
      [[`Update by ${login}`, 'email *changed*\nconfirmed = true *changed* from false']],
    );
    assert.ok(!entries[0]?.detail?.includes('@'), 'no addresses in the history');
  });

  test('the unchanged address (in another case too) is accepted; nothing changed is recorded as such', async () => {
    const s = await createSubscriber(t.db, { email: 'Same@example.com', confirmed: true, htmlEmail: false });
    const res = await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload: { email: 'Same@example.com' } });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body, { ...expectSubscriber(body, { email: 'Same@example.com' }), id: s.id });
    const recase = await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload: { email: 'same@EXAMPLE.com' } });
    assert.equal(recase.statusCode, 200);
    assert.equal(recase.json().email, 'same@EXAMPLE.com');
    const entries = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, s.id));
    assert.deepEqual(
      entries.map((e) => e.detail),
      ['No user details changed', 'email *changed*'],
    );
  });

  test('every flag can change; the history lists each change in field order', async () => {
    const s = await createSubscriber(t.db, { confirmed: true, blacklisted: false, htmlEmail: false, disabled: false });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/subscribers/${s.id}`,
      headers,
      payload: { email: s.email, confirmed: false, blacklisted: true, htmlEmail: true, disabled: true },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body, {
      ...expectSubscriber(body, { email: s.email, confirmed: false, blacklisted: true, html_email: true, disabled: true }),
      id: s.id,
    });
    const [entry] = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, s.id));
    assert.equal(
      entry?.detail,
      [
        'confirmed = false *changed* from true',
        'blacklisted = true *changed* from false',
        'html_email = true *changed* from false',
        'disabled = true *changed* from false',
      ].join('\n'),
    );
  });

  test("another subscriber's address, in any case, is 409", async () => {
    await createSubscriber(t.db, { email: 'taken@example.com' });
    const s = await createSubscriber(t.db);
    const res = await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload: { email: 'TAKEN@example.com' } });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { message: 'Email already exists.' });
  });

  test('missing or invalid e-mail and wrong types are 422', async () => {
    const s = await createSubscriber(t.db);
    const cases: [object, Record<string, string[]>][] = [
      [{ confirmed: true }, { email: ['This value should not be blank.'] }],
      [{ email: 'not an address' }, { email: ['This value is not a valid email address.'] }],
      [
        { email: s.email, confirmed: 'yes', disabled: 1 },
        { confirmed: ['This value should be of type boolean.'], disabled: ['This value should be of type boolean.'] },
      ],
      [{ email: s.email, htmlEmail: 'true' }, { html_email: ['This value should be of type boolean.'] }],
    ];
    for (const [payload, errors] of cases) {
      const res = await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, JSON.stringify(payload));
    }
  });

  test('order of checks: session, privilege, then 404 before the body is validated', async () => {
    const none = await t.inject({ method: 'PUT', url: '/api/v2/subscribers/999999', payload: {} });
    assert.equal(none.statusCode, 403);
    assert.deepEqual(none.json(), NO_SESSION);
    const denied = await t.inject({ method: 'PUT', url: '/api/v2/subscribers/999999', headers: await withoutPrivilege(), payload: {} });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to update subscribers.' });
    const missing = await t.inject({ method: 'PUT', url: '/api/v2/subscribers/999999', headers, payload: { email: 42 } });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { message: 'Subscriber not found.' });
    const bad = await t.inject({ method: 'PUT', url: '/api/v2/subscribers/x1', headers, payload: {} });
    assert.equal(bad.statusCode, 404);
    assert.match(bad.json().message, /^No route found for "PUT /);
  });
});

describe('DELETE /api/v2/subscribers/{subscriberId}', () => {
  test('deletes the subscriber with subscriptions and history; the list stays', async () => {
    const s = await createSubscriber(t.db);
    const list = await createList(t.db);
    await t.db.insert(subscriptions).values({ listId: list.id, subscriberId: s.id });
    await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}`, headers, payload: { email: s.email, disabled: true } });
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${s.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.deepEqual(await t.db.select().from(subscriptions).where(eq(subscriptions.subscriberId, s.id)), []);
    assert.deepEqual(await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, s.id)), []);
    const again = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}`, headers });
    assert.equal(again.statusCode, 404);
    assert.equal((await t.db.select().from(lists).where(eq(lists.id, list.id))).length, 1);
  });

  test('unknown id is 404; no session or privilege is 403; non-numeric is the route 404', async () => {
    const missing = await t.inject({ method: 'DELETE', url: '/api/v2/subscribers/999999', headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { message: 'Subscriber not found.' });
    const s = await createSubscriber(t.db);
    const none = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${s.id}` });
    assert.deepEqual([none.statusCode, none.json()], [403, NO_SESSION]);
    const denied = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${s.id}`, headers: await withoutPrivilege() });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to delete subscribers.' }]);
    const bad = await t.inject({ method: 'DELETE', url: '/api/v2/subscribers/1.5', headers });
    assert.equal(bad.statusCode, 404);
    assert.match(bad.json().message, /^No route found/);
  });
});

describe('POST /api/v2/subscribers/{subscriberId}/reset-bounce-count', () => {
  test('sets the bounce count to 0 and answers the subscriber with lists', async () => {
    const s = await createSubscriber(t.db, { bounceCount: 17, confirmed: true, htmlEmail: false });
    const list = await createList(t.db, { name: 'Bounced' });
    await t.db.insert(subscriptions).values({ listId: list.id, subscriberId: s.id });
    const res = await t.inject({ method: 'POST', url: `/api/v2/subscribers/${s.id}/reset-bounce-count`, headers });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body, {
      ...expectSubscriber(body, { email: s.email }),
      subscribed_lists: [
        {
          id: list.id,
          name: 'Bounced',
          created_at: atom(body.subscribed_lists[0].created_at),
          description: null,
          list_position: null,
          subject_prefix: null,
          public: true,
          category: '',
          rss_feed: null,
        },
      ],
    });
    const entries = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, s.id));
    assert.deepEqual(
      entries.map((e) => [e.summary, e.detail]),
      [[`Bounce count reset by ${login}`, 'bounce_count = 0 *changed* from 17']],
    );
  });

  test('404, 403 and the privilege message', async () => {
    const missing = await t.inject({ method: 'POST', url: '/api/v2/subscribers/999999/reset-bounce-count', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Subscriber not found.' }]);
    const none = await t.inject({ method: 'POST', url: '/api/v2/subscribers/1/reset-bounce-count' });
    assert.deepEqual([none.statusCode, none.json()], [403, NO_SESSION]);
    const denied = await t.inject({ method: 'POST', url: '/api/v2/subscribers/1/reset-bounce-count', headers: await withoutPrivilege() });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to manage Subscribers.' }]);
  });
});

describe('GET /api/v2/subscribers/{subscriberId}/history', () => {
  test('pages the history in id order and filters by ip, date_from and summary', async () => {
    const s = await createSubscriber(t.db);
    const rows = await t.db
      .insert(subscriberHistory)
      .values([
        {
          subscriberId: s.id,
          ip: '10.0.0.1',
          summary: 'Import by admin',
          detail: 'd1',
          systemInfo: null,
          createdAt: new Date('2026-01-01T10:00:00Z'),
        },
        {
          subscriberId: s.id,
          ip: '10.0.0.2',
          summary: 'Update by admin',
          detail: 'd2',
          systemInfo: 'ua',
          createdAt: new Date('2026-02-01T10:00:00Z'),
        },
        {
          subscriberId: s.id,
          ip: '10.0.0.1',
          summary: 'Update by admin',
          detail: 'd3',
          systemInfo: null,
          createdAt: new Date('2026-03-01T10:00:00Z'),
        },
      ])
      .returning();
    const [a, b, c] = rows.map((r) => ({
      id: r.id,
      ip: r.ip,
      created_at: r.createdAt.toISOString().replace('.000Z', '+00:00'),
      summary: r.summary,
      detail: r.detail,
      system_info: r.systemInfo,
    }));
    const url = `/api/v2/subscribers/${s.id}/history`;
    const page1 = await t.inject({ method: 'GET', url: `${url}?limit=2`, headers });
    assert.equal(page1.statusCode, 200);
    assert.deepEqual(page1.json(), { items: [a, b], pagination: { total: 3, limit: 2, has_more: true, next_cursor: b!.id } });
    const page2 = await t.inject({ method: 'GET', url: `${url}?limit=2&after_id=${b!.id}`, headers });
    assert.deepEqual(page2.json(), { items: [c], pagination: { total: 3, limit: 2, has_more: false, next_cursor: c!.id } });

    const byIp = await t.inject({ method: 'GET', url: `${url}?ip=10.0.0.1`, headers });
    assert.deepEqual(byIp.json(), { items: [a, c], pagination: { total: 2, limit: 25, has_more: false, next_cursor: c!.id } });
    const byDate = await t.inject({ method: 'GET', url: `${url}?date_from=2026-02-01`, headers });
    assert.deepEqual(byDate.json().items, [b, c]);
    const byDateTime = await t.inject({ method: 'GET', url: `${url}?date_from=2026-02-01T10:00:01%2B00:00`, headers });
    assert.deepEqual(byDateTime.json().items, [c]);
    const bySummery = await t.inject({ method: 'GET', url: `${url}?summery=Update%20by%20admin&ip=10.0.0.2`, headers });
    assert.deepEqual(bySummery.json(), { items: [b], pagination: { total: 1, limit: 25, has_more: false, next_cursor: b!.id } });
    const none = await t.inject({ method: 'GET', url: `${url}?summary=Nothing`, headers });
    assert.deepEqual(none.json(), { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
  });

  test('a bad date is 422; unknown subscriber 404; no session or privilege 403', async () => {
    const s = await createSubscriber(t.db);
    const bad = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}/history?date_from=yesterday`, headers });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json(), { message: 'Validation failed', errors: { date_from: ['Invalid date format. Use format: Y-m-d'] } });
    const missing = await t.inject({ method: 'GET', url: '/api/v2/subscribers/999999/history', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Subscriber not found.' }]);
    const none = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}/history` });
    assert.deepEqual([none.statusCode, none.json()], [403, NO_SESSION]);
    const denied = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}/history`, headers: await withoutPrivilege() });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to view subscribers.' }]);
  });
});
