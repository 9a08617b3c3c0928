import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { compileBounceRule, matchesBounceRule, MAX_MATCH_INPUT } from '../../src/messaging/bounce-rule.pattern.js';
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
const NOT_FOUND = { message: 'Bounce regex not found.' };
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const invalid = (errors: Record<string, string[]>) => ({ message: 'Validation failed', errors });
const post = (payload: unknown, h = headers) => t.inject({ method: 'POST', url: '/api/v2/bounces/regex', headers: h, payload: payload as object });
let n = 0;
const rule = (extra: Record<string, unknown> = {}) => ({ regex: `/rule ${++n}/i`, action: 'deletebounce', status: 'active', ...extra });

describe('bounce rules CRUD', () => {
  test("phpList's flow: create (admin_id = caller), read, list, delete, then 404", async () => {
    const res = await post({ regex: '/mailbox is full/i', action: 'blacklistuser', list_order: 0, admin: 1, comment: 'Auto-generated rule', status: 'active' });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    const expected = {
      id: body.id,
      regex: '/mailbox is full/i',
      regex_hash: md5('/mailbox is full/i'),
      action: 'blacklistuser',
      list_order: 0,
      admin_id: callerId,
      comment: 'Auto-generated rule',
      status: 'active',
      count: 0,
    };
    assert.deepEqual(body, expected);
    const one = await t.inject({ method: 'GET', url: `/api/v2/bounces/regex/${body.id}`, headers });
    assert.deepEqual([one.statusCode, one.json()], [200, expected]);
    const list = await t.inject({ method: 'GET', url: '/api/v2/bounces/regex', headers });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json().find((r: { id: number }) => r.id === body.id), expected);
    const del = await t.inject({ method: 'DELETE', url: `/api/v2/bounces/regex/${body.id}`, headers });
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    const gone = await t.inject({ method: 'GET', url: `/api/v2/bounces/regex/${body.id}`, headers });
    assert.deepEqual([gone.statusCode, gone.json()], [404, NOT_FOUND]);
    const again = await t.inject({ method: 'DELETE', url: `/api/v2/bounces/regex/${body.id}`, headers });
    assert.deepEqual([again.statusCode, again.json()], [404, NOT_FOUND]);
  });

  test('the list is in application order: list_order, then id', async () => {
    const late = (await post(rule({ list_order: 50 }))).json();
    const early = (await post(rule({ list_order: -5 }))).json();
    const ids = (await t.inject({ method: 'GET', url: '/api/v2/bounces/regex', headers })).json().map((r: { id: number }) => r.id);
    assert.ok(ids.indexOf(early.id) < ids.indexOf(late.id));
  });

  test('PUT replaces every field (201, as phpList); admin_id and count stay; 404 first', async () => {
    const created = (await post(rule({ list_order: 3, comment: 'c' }))).json();
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/bounces/regex/${created.id}`,
      headers,
      payload: { regex: '#user unknown#', action: 'unconfirmuser', status: 'invite' },
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), {
      id: created.id,
      regex: '#user unknown#',
      regex_hash: md5('#user unknown#'),
      action: 'unconfirmuser',
      list_order: 0,
      admin_id: callerId,
      comment: null,
      status: 'invite',
      count: 0,
    });
    const same = await t.inject({ method: 'PUT', url: `/api/v2/bounces/regex/${created.id}`, headers, payload: { regex: '#user unknown#', action: 'deleteuser', status: 'active' } });
    assert.equal(same.statusCode, 201, 'its own regex is not a conflict');
    const missing = await t.inject({ method: 'PUT', url: '/api/v2/bounces/regex/999999', headers, payload: {} });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    const other = (await post(rule())).json();
    const clash = await t.inject({ method: 'PUT', url: `/api/v2/bounces/regex/${other.id}`, headers, payload: { regex: '#user unknown#', action: 'deleteuser', status: 'active' } });
    assert.deepEqual([clash.statusCode, clash.json()], [409, { message: 'A bounce rule with this regex already exists.' }]);
  });

  test('the same regex twice → 409', async () => {
    await post(rule({ regex: '/duplicate/' }));
    const res = await post(rule({ regex: '/duplicate/' }));
    assert.deepEqual([res.statusCode, res.json()], [409, { message: 'A bounce rule with this regex already exists.' }]);
  });

  test('missing or wrong fields → 422 naming each (action and status required)', async () => {
    const empty = await post({});
    assert.equal(empty.statusCode, 422);
    assert.deepEqual(
      empty.json(),
      invalid({ regex: ['This value should not be blank.'], action: ['This value should not be blank.'], status: ['This value should not be blank.'] }),
    );
    const wrong = await post({ regex: 5, action: 'explode', status: 'on', list_order: 'x', comment: 3 });
    assert.deepEqual(
      wrong.json(),
      invalid({
        regex: ['This value should be of type string.'],
        action: [
          'The value you selected is not a valid choice. Allowed values: blacklistuser, blacklistemailanddeletebounce, blacklistemail, blacklistuseranddeletebounce, decreasecountconfirmuseranddeletebounce, deletebounce, deleteuserandbounce, deleteuser, unconfirmuseranddeletebounce, unconfirmuser.',
        ],
        status: ['The value you selected is not a valid choice. Allowed values: active, invite.'],
        list_order: ['This value should be of type integer.'],
        comment: ['This value should be of type string.'],
      }),
    );
  });

  test('invalid, unsupported and catastrophic patterns → 422 at regex', async () => {
    const cases: [string, string][] = [
      ['mailbox is full', 'Invalid regular expression pattern.'],
      ['/unclosed', 'Invalid regular expression pattern.'],
      ['/a(b/', 'Invalid regular expression pattern.'],
      ['/(?>atomic)/', 'Invalid regular expression pattern.'],
      ['/a/e', 'Unsupported flag "e": use i, m, s, x or u.'],
      ['/a/b/i', 'Unsupported flag "b": use i, m, s, x or u.'],
      ['/\\Gstart/', 'Unsupported escape "\\G": JavaScript has no equivalent.'],
      ['/(a+)+$/', 'The pattern could take exponential time (nested or overlapping quantifiers); simplify it.'],
      ['/(x+x+)+y/', 'The pattern could take exponential time (nested or overlapping quantifiers); simplify it.'],
      ['/(\\w*)*@/', 'The pattern could take exponential time (nested or overlapping quantifiers); simplify it.'],
    ];
    for (const [regex, message] of cases) {
      const res = await post(rule({ regex }));
      assert.deepEqual([res.statusCode, res.json()], [422, invalid({ regex: [message] })], regex);
    }
    const long = await post(rule({ regex: `/${'a'.repeat(500)}/` }));
    assert.deepEqual(long.json(), invalid({ regex: ['This value is too long. It should have 500 characters or less.'] }));
  });

  test('403 without key or the settings privilege; non-digit ids 404', async () => {
    const { headers: campaigns } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    for (const [method, url] of [
      ['GET', '/api/v2/bounces/regex'],
      ['GET', '/api/v2/bounces/regex/1'],
      ['POST', '/api/v2/bounces/regex'],
      ['PUT', '/api/v2/bounces/regex/1'],
      ['DELETE', '/api/v2/bounces/regex/1'],
    ] as const) {
      const none = await t.inject({ method, url, payload: method === 'GET' || method === 'DELETE' ? undefined : rule() });
      assert.deepEqual([none.statusCode, none.json()], [403, NO_SESSION], `${method} ${url}`);
      const denied = await t.inject({ method, url, headers: campaigns, payload: method === 'GET' || method === 'DELETE' ? undefined : rule() });
      assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to manage bounce rules.' }]);
    }
    const { headers: settings } = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    assert.equal((await post(rule(), settings)).statusCode, 201);
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.inject({ method, url: '/api/v2/bounces/regex/abc', headers, payload: method === 'PUT' ? rule() : undefined });
      assert.equal(res.statusCode, 404, method);
    }
  });
});

describe('compileBounceRule', () => {
  test('PCRE delimiters and flags become a JavaScript RegExp', () => {
    assert.deepEqual(compileBounceRule('/mailbox is full/i'), /mailbox is full/i);
    assert.deepEqual(compileBounceRule('#a\\#b#'), /a#b/);
    assert.deepEqual(compileBounceRule('{quota{1,2}}'), /quota{1,2}/);
    assert.deepEqual(compileBounceRule('|x\\|y|ms'), /x\|y/ms);
    assert.deepEqual(compileBounceRule('/user unknown # comment\n  here/x'), /userunknownhere/);
    assert.deepEqual(compileBounceRule('/(?P<code>5\\d\\d)\\k<code>/'), /(?<code>5\d\d)\k<code>/);
    assert.deepEqual(compileBounceRule('/\\p{L}+/u'), /\p{L}+/u);
    assert.deepEqual(compileBounceRule('/[]x]/'), /[\]x]/);
    const anchored = compileBounceRule('/\\Afull\\z/m');
    assert.equal(anchored.test('full'), true);
    assert.equal(anchored.test('x\nfull'), false, '\\A is the start of the text, not of a line');
  });

  test('the matcher looks at the first MAX_MATCH_INPUT characters only', () => {
    const re = compileBounceRule('/needle/');
    assert.equal(matchesBounceRule(re, `${'x'.repeat(100)}needle`), true);
    assert.equal(matchesBounceRule(re, `${'x'.repeat(MAX_MATCH_INPUT)}needle`), false);
    // A pattern that is slow on long input stays bounded (polynomial, not exponential, and capped).
    const started = Date.now();
    matchesBounceRule(compileBounceRule('/\\s*x\\s*$/'), ' '.repeat(1_000_000));
    assert.ok(Date.now() - started < 2000);
  });
});
