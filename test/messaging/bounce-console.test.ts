import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { MAX_MATCH_INPUT } from '../../src/messaging/bounce-rule.pattern.js';
import { createBounce, createCampaign, createSubscriber } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

/* The two endpoints the console's bounce views added: "try this rule" and a bounce's raw message. */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession()).headers;
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const invalid = (errors: Record<string, string[]>) => ({ message: 'Validation failed', errors });
const tryRule = (payload: unknown, h = headers) =>
  t.inject({ method: 'POST', url: '/api/v2/bounces/regex/test', headers: h, payload: payload as object });

const BOUNCE = [
  'From: MAILER-DAEMON@mx.example.net',
  'Subject: Undelivered Mail Returned to Sender',
  '',
  'This is the mail system at host mx.example.net.',
  '<alice@example.com>: host mx.example.com said: 552 5.2.2 Mailbox is FULL; try again later',
].join('\n');

describe('POST /bounces/regex/test', () => {
  test('a match: where, what, and the text around it', async () => {
    const res = await tryRule({ regex: '/mailbox is full/i', text: BOUNCE });
    assert.equal(res.statusCode, 200);
    const start = BOUNCE.indexOf('Mailbox is FULL');
    assert.deepEqual(res.json(), {
      matches: true,
      match: { start, end: start + 'Mailbox is FULL'.length, text: 'Mailbox is FULL' },
      excerpt: `…${BOUNCE.slice(start - 80, start)}Mailbox is FULL; try again later`,
      searched: BOUNCE.length,
    });
  });

  test('no match, flags and PCRE delimiters as bounce processing reads them; nothing is stored', async () => {
    const before = (await t.inject({ method: 'GET', url: '/api/v2/bounces/regex', headers })).json().length;
    const none = await tryRule({ regex: '/mailbox is full/', text: BOUNCE });
    assert.deepEqual([none.statusCode, none.json()], [200, { matches: false, match: null, excerpt: null, searched: BOUNCE.length }]);
    const braces = await tryRule({ regex: '{^<[^>]+>: host}m', text: BOUNCE });
    assert.equal(braces.json().match.text, '<alice@example.com>: host');
    const after = (await t.inject({ method: 'GET', url: '/api/v2/bounces/regex', headers })).json().length;
    assert.equal(after, before);
  });

  test('only the first 20,000 characters are searched, as in bounce processing', async () => {
    const text = `${'x'.repeat(MAX_MATCH_INPUT)}user unknown`;
    const res = await tryRule({ regex: '/user unknown/', text });
    assert.deepEqual(res.json(), { matches: false, match: null, excerpt: null, searched: MAX_MATCH_INPUT });
  });

  test('a long match is shown cut at 500 characters', async () => {
    const res = await tryRule({ regex: '/a+/', text: 'a'.repeat(600) });
    assert.equal(res.json().match.text, `${'a'.repeat(500)}…`);
    assert.equal(res.json().match.end, 600);
  });

  test('bad patterns: 422 at regex saying why, as a save would', async () => {
    const cases: [string, string][] = [
      ['/(\\w+) \\1/', 'Backreferences (\\1, \\k<name>, \\g) are not supported: bounce rules run in a linear-time engine (RE2).'],
      ['/foo(?=bar)/', 'Lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported: bounce rules run in a linear-time engine (RE2).'],
      ['mailbox full', 'Invalid regular expression pattern.'],
      ['/a/e', 'Unsupported flag "e": use i, m, s, x or u.'],
      ['/(unclosed/', 'Invalid regular expression pattern: missing closing ): `(unclosed`.'],
    ];
    for (const [regex, message] of cases) {
      const res = await tryRule({ regex, text: BOUNCE });
      assert.deepEqual([res.statusCode, res.json()], [422, invalid({ regex: [message] })], regex);
    }
  });

  test('bad bodies: missing fields, too long a text or pattern, not JSON → 4xx naming the field', async () => {
    const missing = await tryRule({ regex: '/a/' });
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(Object.keys(missing.json().errors), ['text']);
    const long = await tryRule({ regex: '/a/', text: 'a'.repeat(65_537) });
    assert.equal(long.statusCode, 422);
    assert.deepEqual(Object.keys(long.json().errors), ['text']);
    const pattern = await tryRule({ regex: `/${'a'.repeat(600)}/`, text: 'a' });
    assert.equal(pattern.statusCode, 422);
    assert.deepEqual(Object.keys(pattern.json().errors), ['regex']);
    // Unknown fields are dropped, as on every body of the API: nothing here could save the rule.
    const extra = await tryRule({ regex: '/a/', text: 'a', save: true });
    assert.equal(extra.statusCode, 200);
    const notJson = await t.inject({
      method: 'POST',
      url: '/api/v2/bounces/regex/test',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{',
    });
    assert.equal(notJson.statusCode, 400);
  });

  test('needs a session and the settings privilege, like the rules', async () => {
    const anonymous = await t.inject({ method: 'POST', url: '/api/v2/bounces/regex/test', payload: { regex: '/a/', text: 'a' } });
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, NO_SESSION]);
    const { headers: campaignsOnly } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await tryRule({ regex: '/a/', text: 'a' }, campaignsOnly);
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to manage bounce rules.' }]);
  });

  test('at most 60 tries a minute per administrator: then 429 with Retry-After', async () => {
    const { headers: busy } = await t.adminWithSession();
    for (let i = 0; i < 60; i++) assert.equal((await tryRule({ regex: '/a/', text: 'a' }, busy)).statusCode, 200);
    const over = await tryRule({ regex: '/a/', text: 'a' }, busy);
    assert.deepEqual([over.statusCode, over.json()], [429, { message: 'Too many rule tests: at most 60 a minute.' }]);
    assert.ok(Number(over.headers['retry-after']) >= 1);
    // Another administrator has their own allowance.
    assert.equal((await tryRule({ regex: '/a/', text: 'a' })).statusCode, 200);
  });
});

describe('GET /bounces/{bounceId}', () => {
  test('the header and body as received', async () => {
    const campaign = await createCampaign(t.db, { subject: 'Raw' });
    const subscriber = await createSubscriber(t.db, { email: 'raw@example.com' });
    const bounce = await createBounce(t.db, {
      status: 'bounced list message',
      header: 'From: MAILER-DAEMON\nSubject: failure',
      data: 'Mailbox is full',
      campaignId: campaign.id,
      subscriberId: subscriber.id,
    });
    const res = await t.inject({ method: 'GET', url: `/api/v2/bounces/${bounce.id}`, headers });
    assert.deepEqual(
      [res.statusCode, res.json()],
      [
        200,
        {
          id: bounce.id,
          status: 'bounced list message',
          date: atom(res.json().date),
          message_id: campaign.id,
          message_subject: 'Raw',
          subscriber_id: subscriber.id,
          subscriber_email: 'raw@example.com',
          comment: null,
          header: 'From: MAILER-DAEMON\nSubject: failure',
          data: 'Mailbox is full',
          truncated: false,
        },
      ],
    );
    const empty = await createBounce(t.db, { status: 'unidentified' });
    const none = await t.inject({ method: 'GET', url: `/api/v2/bounces/${empty.id}`, headers });
    assert.deepEqual(none.json(), {
      id: empty.id,
      status: 'unidentified',
      date: atom(none.json().date),
      message_id: null,
      message_subject: null,
      subscriber_id: null,
      subscriber_email: null,
      comment: null,
      header: null,
      data: null,
      truncated: false,
    });
  });

  test('a huge message is cut at 262,144 characters and says so', async () => {
    const bounce = await createBounce(t.db, { header: 'h', data: 'é'.repeat(262_145) });
    const res = await t.inject({ method: 'GET', url: `/api/v2/bounces/${bounce.id}`, headers });
    const body = res.json() as { data: string; header: string; truncated: boolean };
    assert.equal(body.data, 'é'.repeat(262_144));
    assert.deepEqual([body.header, body.truncated], ['h', true]);
    // Stored whole: only the answer is cut.
    const [stored] = await queryRows<{ n: number }>(t.db, sql`select length(data)::int as n from bounces where id = ${bounce.id}`);
    assert.equal(stored?.n, 262_145);
  });

  test('unknown → 404; not a number → 4xx; campaigns privilege needed', async () => {
    const missing = await t.inject({ method: 'GET', url: '/api/v2/bounces/999999999', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Bounce not found.' }]);
    const bad = await t.inject({ method: 'GET', url: '/api/v2/bounces/abc', headers });
    assert.ok(bad.statusCode >= 400 && bad.statusCode < 500);
    const anonymous = await t.inject({ method: 'GET', url: '/api/v2/bounces/1' });
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, NO_SESSION]);
    const { headers: settingsOnly } = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const denied = await t.inject({ method: 'GET', url: '/api/v2/bounces/1', headers: settingsOnly });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to manage bounces.' }]);
  });
});
