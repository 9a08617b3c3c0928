import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STYLESHEET, STYLESHEET_PATH } from '../../src/public/stylesheet.js';
import { startTestApp, type TestApp } from '../helper.js';
import { createPage, setPageData, signupFixture } from './fixtures.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const inline = (html: string) => html.replace(`<link rel="stylesheet" href="${STYLESHEET_PATH}">`, `<style>${STYLESHEET}</style>`);

/** The console's preview of a subscribe page (issue 26): the hosted page as visitors would get it, active or not. */
describe('GET /api/v2/subscribe-pages/{pageId}/preview', () => {
  test('an active page: exactly the hosted form, the stylesheet written in, the logo origin named', async () => {
    const f = await signupFixture(t.db, { logo_url: 'https://cdn.club.example/logo.png', accent_color: '#2557d6' });
    const { headers } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${f.page.id}/preview`, headers });
    assert.equal(res.statusCode, 200);
    const hosted = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}` });
    assert.equal(hosted.statusCode, 200);
    assert.deepEqual(res.json(), { html: inline(hosted.body), image_origins: ['https://cdn.club.example'] });
    assert.ok(!(res.json() as { html: string }).html.includes('<link'), 'nothing to fetch but the logo');
  });

  test('an inactive page is previewed too (the hosted route 404s), in its language; with no list, the "not open yet" page', async () => {
    const { headers } = await t.adminWithSession();
    const draft = await createPage(t.db, 'Bald', { language: 'de', header: 'Neuigkeiten' }, false);
    assert.equal((await t.inject({ method: 'GET', url: `/subscribe/${draft.id}` })).statusCode, 404);
    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${draft.id}/preview`, headers });
    assert.equal(res.statusCode, 200);
    const { html, image_origins } = res.json() as { html: string; image_origins: string[] };
    assert.deepEqual(image_origins, []);
    assert.match(html, /^<!doctype html><html lang="de">/);
    assert.ok(html.includes('<h1>Anmeldungen sind noch nicht möglich</h1>'));

    const f = await signupFixture(t.db);
    await setPageData(t.db, f.page.id, 'header', 'Join the club');
    const withLists = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${f.page.id}/preview`, headers });
    assert.ok((withLists.json() as { html: string }).html.includes('<h1>Join the club</h1>'));
  });

  test('without the subscribers privilege → 403; unknown page → 404', async () => {
    const page = await createPage(t.db, 'Any', {});
    const { headers: weak } = await t.adminWithSession({ superUser: false, privileges: { subscribers: false } });
    const denied = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${page.id}/preview`, headers: weak });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to view subscribe pages.' }]);
    const { headers } = await t.adminWithSession();
    const unknown = await t.inject({ method: 'GET', url: '/api/v2/subscribe-pages/999999/preview', headers });
    assert.deepEqual([unknown.statusCode, unknown.json()], [404, { message: 'Subscribe page not found' }]);
  });
});
