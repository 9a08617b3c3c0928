import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { administrators, lists } from '../../src/db/schema/index.js';
import { startTestApp, type TestApp } from '../helper.js';
import { createList, createSubscriber, subscribe } from '../factories.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const NUL_MESSAGE = 'This value should not contain NUL characters (\\u0000).';
const notFound = (method: string, path: string) => ({ message: `No route found for "${method} http://localhost:80${path}"` });

describe('integer path ids are digits only, on every route', () => {
  const ODD = ['1.0', '1e0', '%2B1', '1%20', '%091', '0x1', '0x10', '-1', '1,0', '%EF%BC%91'];

  test('a delete with an odd id answers 404 and deletes nothing', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    for (const odd of ODD) {
      const url = `/api/v2/lists/${odd.replace(/^1|1$/, String(list.id))}`;
      const res = await t.inject({ method: 'DELETE', url, headers });
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), notFound('DELETE', url), url);
    }
    for (const odd of ['0x1', '0x10']) {
      const res = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${odd}`, headers });
      assert.equal(res.statusCode, 404, odd);
    }
    assert.equal((await t.db.select().from(lists).where(eq(lists.id, list.id))).length, 1, 'the list is still there');
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/lists/0${list.id}`, headers })).statusCode, 200, 'digits with a leading 0');
  });

  test('DELETE /administrators/+1 does not delete the caller', async () => {
    const { admin, headers } = await t.adminWithSession();
    for (const odd of [`%2B${admin.id}`, `${admin.id}.0`, `${admin.id}e0`]) {
      const res = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${odd}`, headers });
      assert.equal(res.statusCode, 404, odd);
    }
    assert.equal((await t.db.select().from(administrators).where(eq(administrators.id, admin.id))).length, 1);
  });

  test('every kind of id route refuses them: subscribers, templates, campaigns, bounce rules, nested ids', async () => {
    const { headers } = await t.adminWithSession();
    for (const url of [
      '/api/v2/subscribers/1.0',
      '/api/v2/templates/0x1',
      '/api/v2/campaigns/1e0',
      '/api/v2/bounces/regex/%2B1',
      '/api/v2/subscribers/1/attributes/1.0',
      '/api/v2/list-messages/message/1/list/0x1/check',
      '/api/v2/subscribe-pages/1%20',
    ]) {
      const res = await t.inject({ method: 'GET', url, headers });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.json<{ message: string }>().message, /^No route found for "GET /, url);
    }
  });
});

describe('NUL characters are refused where requests are read', () => {
  test('in a JSON body: 422 naming the field, nothing written', async () => {
    const { headers } = await t.adminWithSession();
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', '/api/v2/lists', { name: 'a\u0000b' }, 'name'],
      ['POST', '/api/v2/lists', { name: 'ok', description: 'x\u0000' }, 'description'],
      ['POST', '/api/v2/templates', { title: 'T\u0000' }, 'title'],
      ['POST', '/api/v2/blacklist/add', { email: 'nul@example.com', reason: '\u0000' }, 'reason'],
      ['POST', '/api/v2/subscribe-pages', { title: 'P\u0000' }, 'title'],
      ['POST', '/api/v2/attributes', { name: 'n\u0000', type: 'textline' }, 'name'],
      ['POST', '/api/v2/bounces/regex', { regex: '/a\u0000/', action: 'blacklistuser', status: 'active' }, 'regex'],
      [
        'POST',
        '/api/v2/campaigns',
        { content: { subject: 'S\u0000', text: 'x' }, format: { send_format: 'html' }, options: { from_field: 'a@example.com' } },
        'content.subject',
      ],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await t.inject({ method: method as 'POST', url, headers, payload });
      assert.equal(res.statusCode, 422, `${url} ${field}: ${res.body}`);
      const body = res.json<{ message: string; errors: Record<string, string[]> }>();
      assert.equal(body.message, 'Validation failed');
      assert.deepEqual(body.errors[field], [NUL_MESSAGE], `${url} ${field}: ${res.body}`);
    }
    const names = (await t.db.select({ name: lists.name }).from(lists)).map((r) => r.name);
    assert.ok(!names.some((n) => n.includes('\u0000') || n === 'ok'), 'no list written');
  });

  test('without a session: the login name of POST /sessions', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'ad\u0000min', password: 'x' } });
    assert.deepEqual([res.statusCode, res.json()], [422, { message: 'Validation failed', errors: { login_name: [NUL_MESSAGE] } }]);
    const key = await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { 'login\u0000name': 'a', password: 'x' } });
    assert.equal(key.statusCode, 422);
  });

  test('in a path or query value: 400 naming the parameter', async () => {
    const { headers } = await t.adminWithSession();
    const info = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/%00', headers });
    assert.deepEqual([info.statusCode, info.json()], [400, { message: 'Path parameter "email" contains a NUL character (\\u0000).' }]);
    const find = await t.inject({ method: 'GET', url: '/api/v2/subscribers?find_column=email&find_value=a%00b', headers });
    assert.deepEqual([find.statusCode, find.json()], [400, { message: 'Query parameter "find_value" contains a NUL character (\\u0000).' }]);
  });

  test('the confirm page shows its HTML 404 for a code holding NUL', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/subscribers/confirm?uniqueId=a%00b' });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(res.body.includes("Subscriber isn't found or already confirmed."));
  });
});

describe('JSON bodies', () => {
  test('nesting deeper than 64 levels is a 400 on every JSON route, public ones included', async () => {
    const { headers } = await t.adminWithSession();
    const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    for (const [url, auth] of [
      ['/api/v2/sessions', {}],
      ['/api/v2/password-reset/request', {}],
      ['/api/v2/lists', headers],
    ] as const) {
      const res = await t.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json' }, payload: deep });
      assert.deepEqual([res.statusCode, res.json()], [400, { message: 'Invalid JSON: nested deeper than 64 levels.' }], url);
    }
    const nestedObjects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const res = await t.inject({ method: 'POST', url: '/api/v2/sessions', headers: { 'content-type': 'application/json' }, payload: nestedObjects });
    assert.equal(res.statusCode, 400);
    // 64 levels are fine (and brackets inside strings do not count).
    const ok = `{"name":"[[[[{{{{","description":${'['.repeat(63)}${']'.repeat(63)}}`;
    const fine = await t.inject({ method: 'POST', url: '/api/v2/lists', headers: { ...headers, 'content-type': 'application/json' }, payload: ok });
    assert.equal(fine.statusCode, 422, fine.body);
    assert.deepEqual(Object.keys(fine.json<{ errors: object }>().errors), ['description']);
  });

  test('__proto__ keys are dropped, as by Fastify’s own parser', async () => {
    const { headers } = await t.adminWithSession();
    const payload = '{"name":"Proto list","__proto__":{"public":true},"constructor":{"prototype":{"public":true}}}';
    const res = await t.inject({ method: 'POST', url: '/api/v2/lists', headers: { ...headers, 'content-type': 'application/json' }, payload });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json<{ public: boolean }>().public, false);
    const camel = '{"loginName":"x","password":"y","__proto__":{"login_name":"admin"}}';
    const login = await t.inject({ method: 'POST', url: '/api/v2/sessions', headers: { 'content-type': 'application/json' }, payload: camel });
    assert.equal(login.statusCode, 401, login.body);
  });

  test('an unknown route answers 404 whatever its body, before reading it', async () => {
    for (const payload of ['not json', '{"a":', '\u0000']) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/nothing-here', headers: { 'content-type': 'text/plain' }, payload });
      assert.deepEqual([res.statusCode, res.json()], [404, notFound('POST', '/api/v2/nothing-here')], payload);
    }
    const known = await t.inject({ method: 'POST', url: '/api/v2/sessions', headers: { 'content-type': 'text/plain' }, payload: 'not json' });
    assert.equal(known.statusCode, 400);
  });
});

describe('query strings', () => {
  test('PHP-style indexed arrays (emails[0]=…) read like emails[]=…', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    const a = await createSubscriber(t.db, { email: 'idx-a@example.com' });
    const b = await createSubscriber(t.db, { email: 'idx-b@example.com' });
    const c = await createSubscriber(t.db, { email: 'idx-c@example.com' });
    for (const s of [a, b, c]) await subscribe(t.db, list.id, s.id);
    const res = await t.inject({
      method: 'DELETE',
      url: `/api/v2/lists/${list.id}/subscribers?emails[1]=idx-b@example.com&emails[0]=idx-a@example.com`,
      headers,
    });
    assert.equal(res.statusCode, 204, res.body);
    const count = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/count`, headers });
    assert.deepEqual(count.json(), { subscribers_count: 1 });
    const invalid = await t.inject({
      method: 'DELETE',
      url: `/api/v2/lists/${list.id}/subscribers?emails[0]=ok@example.com&emails[1]=nope`,
      headers,
    });
    assert.deepEqual(invalid.json(), { message: 'Validation failed', errors: { 'emails[1]': ['This value is not a valid email address.'] } });
  });

  test('a body field sent in the query string of a POST or PUT counts; the body wins', async () => {
    const { headers } = await t.adminWithSession();
    const fromQuery = await t.inject({ method: 'POST', url: '/api/v2/lists?name=From%20query&description=Q', headers, payload: {} });
    assert.equal(fromQuery.statusCode, 201, fromQuery.body);
    assert.equal(fromQuery.json<{ name: string }>().name, 'From query');
    assert.equal(fromQuery.json<{ description: string }>().description, 'Q');
    const both = await t.inject({ method: 'POST', url: '/api/v2/lists?name=Query&subjectPrefix=P', headers, payload: { name: 'Body' } });
    assert.equal(both.statusCode, 201, both.body);
    assert.deepEqual([both.json<{ name: string }>().name, both.json<{ subject_prefix: string }>().subject_prefix], ['Body', 'P']);
    const id = both.json<{ id: number }>().id;
    const put = await t.inject({ method: 'PUT', url: `/api/v2/lists/${id}?name=Renamed`, headers });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json<{ name: string }>().name, 'Renamed');
    // Query values are text: a boolean field given there is a type error on that field, as in phpList.
    const typed = await t.inject({ method: 'POST', url: '/api/v2/lists?name=X&public=true', headers, payload: {} });
    assert.deepEqual(typed.json(), { message: 'Validation failed', errors: { public: ['This value should be of type boolean.'] } });
  });
});

describe('multipart bodies', () => {
  test('a multipart Content-Type without a boundary is a 400, on every route that reads forms', async () => {
    const { headers } = await t.adminWithSession();
    const list = await createList(t.db);
    for (const url of ['/api/v2/subscribers/import', '/api/v2/templates', `/api/v2/campaigns/1/attachments`, `/api/v2/lists/${list.id}`]) {
      const res = await t.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'multipart/form-data' }, payload: 'abc' });
      if (res.statusCode === 405) continue;
      assert.deepEqual([res.statusCode, res.json()], [400, { message: 'Invalid multipart body: the Content-Type header has no boundary.' }], url);
    }
  });
});
