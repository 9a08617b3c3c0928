import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { subscriberHistory } from '../../src/db/schema/index.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp({ publicUrl: 'https://lists.example.org' });
  headers = (await t.adminWithSession()).headers;
});
after(() => t.close());

const THANKS = '<h1>Thank you, your subscription is confirmed!</h1>';

describe('double opt-in', () => {
  test('request_confirmation: created unconfirmed, the mailed link confirms it', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers,
      payload: { email: 'Optin@Example.com', request_confirmation: true },
    });
    assert.equal(res.statusCode, 201);
    const created = res.json();
    assert.equal(created.confirmed, false);

    const [mail] = await t.smtp.waitFor(1);
    assert.deepEqual(
      mail!.envelope.to.map((a) => a.toLowerCase()),
      ['optin@example.com'],
    );
    assert.equal(mail!.parsed.subject, 'Please confirm your subscription');
    assert.equal(mail!.parsed.html, false, 'text only for a subscriber who prefers text');
    const links = mail!.parsed.text?.match(/https?:\/\/\S+/g) ?? [];
    assert.deepEqual(links, [`https://lists.example.org/api/v2/subscribers/confirm?uniqueId=${created.unique_id}`]);

    const link = new URL(links[0]!);
    const page = await t.inject({ method: 'GET', url: `${link.pathname}${link.search}`, headers: { 'user-agent': 'mail-client' } });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(THANKS), "phpList's words, now in the public layout (issue 13)");
    assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/);
    // No JSON headers, but those of every HTML page.
    assert.equal(page.headers['x-frame-options'], 'DENY');

    const after = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${created.id}`, headers });
    assert.equal(after.json().confirmed, true);
    const entries = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, created.id));
    assert.deepEqual(
      entries.map((e) => [e.summary, e.systemInfo]),
      [
        ['Subscriber created', 'User-Agent: lightMyRequest'],
        ['Subscription confirmed', 'User-Agent: mail-client'],
      ],
    );
    assert.match(entries[0]!.detail!, /; confirmation requested$/);

    // Opening the link again still thanks, and records nothing more.
    const again = await t.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    assert.deepEqual([again.statusCode, again.body.includes(THANKS)], [200, true]);
    assert.equal((await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, created.id))).length, 2);
  });

  test('a subscriber who prefers HTML gets the link in both parts', async () => {
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers,
      payload: { email: 'html@example.com', requestConfirmation: true, htmlEmail: true },
    });
    assert.equal(res.statusCode, 201);
    const mail = (await t.smtp.waitFor(before + 1))[before]!;
    const link = `https://lists.example.org/api/v2/subscribers/confirm?uniqueId=${res.json().unique_id}`;
    assert.ok(String(mail.parsed.html).includes(`href="${link}"`));
    assert.ok(mail.parsed.text?.includes(link));
  });

  test('confirming by the link works for a subscriber created any other way', async () => {
    const s = await createSubscriber(t.db, { confirmed: false });
    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/confirm?uniqueId=${s.uniqueId}` });
    assert.deepEqual([res.statusCode, res.body.includes(THANKS)], [200, true]);
    const twice = await t.inject({ method: 'GET', url: `/api/v2/subscribers/confirm?uniqueId=${s.uniqueId}&uniqueId=other` });
    assert.deepEqual([twice.statusCode, twice.body.includes(THANKS)], [200, true]);
  });

  test('missing code is 400, unknown code is 404, both HTML and public', async () => {
    for (const url of ['/api/v2/subscribers/confirm', '/api/v2/subscribers/confirm?uniqueId=']) {
      const res = await t.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 400, url);
      assert.ok(res.body.includes('<h1>Missing confirmation code.</h1>'), url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
    for (const id of ['invalid-unique-id', 'x'.repeat(500), 'AAAABBBBCCCCDDDD0000111122223333']) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/confirm?uniqueId=${id}` });
      assert.equal(res.statusCode, 404, id);
      assert.ok(res.body.includes("Subscriber isn't found or already confirmed."), id);
    }
  });

  test('a confirmation mail the server refuses does not undo the subscriber', async () => {
    const before = t.smtp.messages.length;
    t.smtp.failNext(1, 550, 'No such mailbox');
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers,
      payload: { email: 'bounces@example.com', request_confirmation: true },
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().confirmed, false);
    assert.equal(t.smtp.messages.length, before);
    const found = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${res.json().id}`, headers });
    assert.equal(found.statusCode, 200);
  });

  test('no mail without request_confirmation', async () => {
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers',
      headers,
      payload: { email: 'quiet@example.com', request_confirmation: null },
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().confirmed, true);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(t.smtp.messages.length, before);
  });
});
