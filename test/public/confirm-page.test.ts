import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePreferencesToken } from '../../src/sending/preferences-link.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { createPage } from './fixtures.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ publicUrl: 'https://lists.example.org' });
});
after(() => t.close());

const confirmUrl = (uniqueId: string, extra = '') => `/api/v2/subscribers/confirm?uniqueId=${encodeURIComponent(uniqueId)}${extra}`;

describe('GET /api/v2/subscribers/confirm: the confirm page', () => {
  test('confirms, names the lists the person is on now, links to their preference centre', async () => {
    const s = await createSubscriber(t.db, { confirmed: false });
    const a = await createList(t.db, { name: 'Garden & Home' });
    const b = await createList(t.db, { name: "Readers' Club" });
    await subscribe(t.db, a.id, s.id);
    await subscribe(t.db, b.id, s.id);
    const res = await t.inject({ method: 'GET', url: confirmUrl(s.uniqueId) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(res.headers['content-security-policy']), /script-src 'none'/);
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.match(res.body, /^<!doctype html><html lang="en">/);
    assert.ok(
      res.body.includes(
        '<h1>Thank you, your subscription is confirmed!</h1><p>You are now on these lists:</p>' +
          '<ul class="lists"><li>Garden &amp; Home</li><li>Readers\' Club</li></ul>',
      ),
    );
    const href = /<a class="button" href="([^"]+)">Manage your subscription<\/a>/.exec(res.body)![1]!;
    assert.ok(href.startsWith('https://lists.example.org/preferences/'));
    assert.deepEqual(decodePreferencesToken(t.ctx.secrets.linkToken, href.split('/').pop()!, t.ctx.config.preferences.linkDays), {
      uniqueId: s.uniqueId,
    });
  });

  test('in the language and look of the subscribe page named by `page`; an unknown or garbled `page` is ignored', async () => {
    const s = await createSubscriber(t.db, { confirmed: false });
    const page = await createPage(t.db, 'Verein', { language: 'de', accent_color: '#7a1f5c', footer: 'Verein e.V.' });
    const res = await t.inject({ method: 'GET', url: confirmUrl(s.uniqueId, `&page=${page.id}`), headers: { 'accept-language': 'en' } });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<html lang="de">/);
    assert.ok(res.body.includes('<h1>Vielen Dank, Ihr Abonnement ist bestätigt!</h1><p>Sie stehen zurzeit auf keiner Liste.</p>'));
    assert.ok(res.body.includes('--accent:#7a1f5c'));
    assert.ok(res.body.includes('<footer>Verein e.V.</footer>'));
    for (const junk of ['&page=abc', '&page=99999999999', '&page=999999', '&page=%00']) {
      const other = await t.inject({ method: 'GET', url: confirmUrl(s.uniqueId, junk), headers: { 'accept-language': 'de' } });
      assert.equal(other.statusCode, 200, junk);
      assert.ok(other.body.includes('<h1>Vielen Dank, Ihr Abonnement ist bestätigt!</h1>'), junk);
      assert.ok(!other.body.includes('--accent:'), junk);
    }
  });

  test('no code → 400 page, unknown or garbled code → 404 page, each saying what happened and what to do', async () => {
    const missing = await t.inject({ method: 'GET', url: '/api/v2/subscribers/confirm' });
    assert.equal(missing.statusCode, 400);
    assert.ok(missing.body.includes('<h1>Missing confirmation code.</h1><p>The link you opened has no confirmation code.'));
    for (const id of ['nobody', 'a%00b', 'x'.repeat(300)]) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/confirm?uniqueId=${id}` });
      assert.equal(res.statusCode, 404, id);
      assert.ok(res.body.includes("<h1>This confirmation link does not work</h1><p>Subscriber isn't found or already confirmed."), id);
      assert.equal(res.headers['x-frame-options'], 'DENY');
    }
    const de = await t.inject({ method: 'GET', url: '/api/v2/subscribers/confirm?uniqueId=nobody', headers: { 'accept-language': 'de' } });
    assert.ok(de.body.includes('<h1>Dieser Bestätigungslink funktioniert nicht</h1>'));
  });
});
