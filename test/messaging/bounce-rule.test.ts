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
    const res = await post({
      regex: '/mailbox is full/i',
      action: 'blacklistuser',
      list_order: 0,
      admin: 1,
      comment: 'Auto-generated rule',
      status: 'active',
    });
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
    assert.deepEqual(
      list.json().find((r: { id: number }) => r.id === body.id),
      expected,
    );
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
    const same = await t.inject({
      method: 'PUT',
      url: `/api/v2/bounces/regex/${created.id}`,
      headers,
      payload: { regex: '#user unknown#', action: 'deleteuser', status: 'active' },
    });
    assert.equal(same.statusCode, 201, 'its own regex is not a conflict');
    const missing = await t.inject({ method: 'PUT', url: '/api/v2/bounces/regex/999999', headers, payload: {} });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    const other = (await post(rule())).json();
    const clash = await t.inject({
      method: 'PUT',
      url: `/api/v2/bounces/regex/${other.id}`,
      headers,
      payload: { regex: '#user unknown#', action: 'deleteuser', status: 'active' },
    });
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
      invalid({
        regex: ['This value should not be blank.'],
        action: ['This value should not be blank.'],
        status: ['This value should not be blank.'],
      }),
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

  test('invalid and unsupported patterns (what RE2 cannot run) → 422 at regex, saying what', async () => {
    const BACKREFERENCE = 'Backreferences (\\1, \\k<name>, \\g) are not supported: bounce rules run in a linear-time engine (RE2).';
    const LOOKAROUND = 'Lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported: bounce rules run in a linear-time engine (RE2).';
    const cases: [string, string][] = [
      ['mailbox is full', 'Invalid regular expression pattern.'],
      ['/unclosed', 'Invalid regular expression pattern.'],
      ['/a(b/', 'Invalid regular expression pattern: missing closing ): `a(b`.'],
      ['/(?>atomic)/', 'Invalid regular expression pattern: invalid or unsupported Perl syntax: `(?>`.'],
      ['/a++/', 'Invalid regular expression pattern: invalid nested repetition operator: `++`.'],
      ['/a/e', 'Unsupported flag "e": use i, m, s, x or u.'],
      ['/a/b/i', 'Unsupported flag "b": use i, m, s, x or u.'],
      ['/\\Gstart/', 'Invalid regular expression pattern: invalid escape sequence: `\\G`.'],
      ['/(a)\\1/', BACKREFERENCE],
      ['/(?P<c>a)\\k<c>/', BACKREFERENCE],
      ['/full(?=box)/', LOOKAROUND],
      ['/(?<!not )full/', LOOKAROUND],
    ];
    for (const [regex, message] of cases) {
      const res = await post(rule({ regex }));
      assert.deepEqual([res.statusCode, res.json()], [422, invalid({ regex: [message] })], regex);
    }
    const long = await post(rule({ regex: `/${'a'.repeat(500)}/` }));
    assert.deepEqual(long.json(), invalid({ regex: ['This value is too long. It should have 500 characters or less.'] }));
  });

  test('a pattern whose compiled program is too big (issue 23) → 422 on create, update and test', async () => {
    const slow = '/(?:a|aa|aaa|aaaa|aaaaa){1,1000}!/';
    const message =
      'The pattern is too complex: it compiles to 14002 instructions, more than 1000. ' +
      'A counted repetition such as {1,1000} repeats its whole group; use + or * or a smaller count.';
    const created = await post(rule({ regex: slow }));
    assert.deepEqual([created.statusCode, created.json()], [422, invalid({ regex: [message] })]);
    const id = (await post(rule())).json().id;
    const updated = await t.inject({ method: 'PUT', url: `/api/v2/bounces/regex/${id}`, headers, payload: rule({ regex: slow }) });
    assert.deepEqual([updated.statusCode, updated.json()], [422, invalid({ regex: [message] })]);
    const tried = await t.inject({ method: 'POST', url: '/api/v2/bounces/regex/test', headers, payload: { regex: slow, text: 'a'.repeat(20_000) } });
    assert.deepEqual([tried.statusCode, tried.json()], [422, invalid({ regex: [message] })]);
    // Counted repetitions of a character, and ordinary rules, stay well inside the bound.
    for (const regex of ['/[a-z0-9.]{1,200}@example\\.com/i', '/(?:mailbox|inbox) (?:is )?(?:full|over ?quota)/i']) {
      assert.equal((await post(rule({ regex }))).statusCode, 201, regex);
    }
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
  test('PCRE delimiters and flags, compiled for RE2', () => {
    const cases: [string, string[], string[]][] = [
      ['/mailbox is full/i', ['The MAILBOX is full.'], ['mailbox full']],
      ['#a\\#b#', ['a#b'], ['ab']],
      ['{quota{1,2}}', ['quotaa'], ['quot']],
      ['|x\\|y|ms', ['x|y'], ['x', 'y']],
      ['/^b.c$/ms', ['a\nb\nc\nd'], ['a b\nc']],
      ['/user unknown # comment\n  here/x', ['userunknownhere'], ['user unknown here']],
      ['/(?P<code>5\\d\\d) (?<x>\\d)/', ['550 5'], ['450 5']],
      ['/\\p{L}+ü/u', ['Grüß dich: aü'], ['1ü']],
      ['/[]x]/', [']', 'x'], ['y']],
      ['/\\Afull\\z/m', ['full'], ['x\nfull', 'full\n']],
      ['/full\\Z/', ['full', 'full\n'], ['full\nx']],
      ['/\\Qa.b\\E\\e(?#note)/', ['a.b\x1b'], ['axb\x1b']],
    ];
    for (const [regex, yes, no] of cases) {
      const re = compileBounceRule(regex);
      for (const text of yes) assert.equal(matchesBounceRule(re, text), true, `${regex} on ${JSON.stringify(text)}`);
      for (const text of no) assert.equal(matchesBounceRule(re, text), false, `${regex} on ${JSON.stringify(text)}`);
    }
  });

  test("the issue's pattern /(a|a)+$/ (accepted by safe-regex2, 6 s in a backtracking engine) runs in linear time", () => {
    const re = compileBounceRule('/(a|a)+$/');
    const started = performance.now();
    assert.equal(matchesBounceRule(re, `${'a'.repeat(28)}!`), false);
    assert.equal(matchesBounceRule(re, `${'a'.repeat(MAX_MATCH_INPUT - 1)}!`), false);
    for (const regex of ['/(a+)+$/', '/(x+x+)+y/', '/(\\w*)*@/', '/\\s*x\\s*$/']) {
      assert.equal(matchesBounceRule(compileBounceRule(regex), `${' a x'.repeat(MAX_MATCH_INPUT / 4 - 1)}!`), false, regex);
    }
    assert.ok(performance.now() - started < 1000, `${Math.round(performance.now() - started)} ms`);
  });

  test('the matcher looks at the first MAX_MATCH_INPUT characters only', () => {
    const re = compileBounceRule('/needle/');
    assert.equal(matchesBounceRule(re, `${'x'.repeat(100)}needle`), true);
    assert.equal(matchesBounceRule(re, `${'x'.repeat(MAX_MATCH_INPUT)}needle`), false);
    const started = Date.now();
    matchesBounceRule(compileBounceRule('/\\s*x\\s*$/'), ' '.repeat(1_000_000));
    assert.ok(Date.now() - started < 2000);
  });
});
