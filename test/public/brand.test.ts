import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mailQueueDrained, startTestApp, type TestApp } from '../helper.js';
import { createPage, signupFixture } from './fixtures.js';

/*
 * The organisation's name and logo (issue 26), set on the Settings screen, on every public page (the shared layout)
 * and in system mail (sign-off and From name). Without them, pages and mail are as they were.
 */

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const NAME = 'Club <Ada> & Co';
const NAME_HTML = 'Club &lt;Ada&gt; &amp; Co';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp({ settingsFromEnv: [] });
  headers = (await t.adminWithSession()).headers;
});
after(async () => t?.close());

const patch = (payload: object) => t.inject({ method: 'PATCH', url: '/api/v2/settings', headers, payload });
const putLogo = () => t.inject({ method: 'PUT', url: '/api/v2/settings/logo', headers: { ...headers, 'content-type': 'image/png' }, payload: PNG });

let client = 0;
function signUp(pageId: number, email: string, listId: number) {
  return t.inject({
    method: 'POST',
    url: `/subscribe/${pageId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    remoteAddress: `198.19.7.${++client}`,
    payload: new URLSearchParams([
      ['email', email],
      ['list', String(listId)],
    ]).toString(),
  });
}
async function mailsTo(email: string) {
  await mailQueueDrained(t);
  return t.smtp.messages.filter((m) => m.envelope.to.some((to) => to.toLowerCase() === email.toLowerCase()));
}

/** The public pages looked at: a sign-up form, a message page (unknown form), the tracked-link error page. */
async function pages(pageId: number) {
  return Promise.all([
    t.inject({ method: 'GET', url: `/subscribe/${pageId}` }),
    t.inject({ method: 'GET', url: '/subscribe/2000000000' }),
    t.inject({ method: 'GET', url: '/lt/not-a-token' }),
  ]);
}

describe('organisation name and logo', () => {
  test('none set: no brand header, titles and mail as before', async () => {
    const f = await signupFixture(t.db, { lists: '' });
    const page = await createPage(t.db, `Plain ${Date.now()}`, { lists: String(f.news.id) });
    for (const res of await pages(page.id)) {
      assert.ok(!res.body.includes('class="brand'), `no header on ${res.body.slice(0, 200)}`);
      assert.doesNotMatch(res.body, /<title>[^<]*·/);
      assert.match(String(res.headers['content-security-policy']), /img-src 'self' data:; /);
    }
    assert.equal((await signUp(page.id, 'before@example.org', f.news.id)).statusCode, 303);
    const [mail] = await mailsTo('before@example.org');
    assert.ok(mail, 'the confirmation mail arrived');
    assert.ok(!(mail.parsed.text ?? '').includes('\n-- \n'), 'no sign-off');
  });

  test('a name only: the name heads every page and ends the title', async () => {
    assert.equal((await patch({ organisation_name: NAME })).statusCode, 200);
    const f = await signupFixture(t.db);
    const [form, unknown, link] = await pages(f.page.id);
    assert.equal(form!.statusCode, 200);
    for (const res of [form!, unknown!, link!]) {
      assert.ok(res.body.includes(`<div class="page"><header class="brand"><p class="brand-name">${NAME_HTML}</p></header><main`), res.body);
    }
    assert.ok(form!.body.includes(`<title>${f.page.title} · ${NAME_HTML}</title>`));
    assert.ok(unknown!.body.includes(`<title>Page not found · ${NAME_HTML}</title>`));
  });

  test('name and logo: the logo under PUBLIC_URL, its alternative text the name, allowed by the CSP', async () => {
    const uploaded = await putLogo();
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const logoUrl: string = uploaded.json().logo.url;
    assert.match(logoUrl, /^http:\/\/localhost:8080\/api\/v2\/logo\/[0-9a-f]{64}$/);
    assert.ok(logoUrl.startsWith(t.config.publicUrl));
    const f = await signupFixture(t.db);
    for (const res of await pages(f.page.id)) {
      assert.ok(res.body.includes(`<header class="brand"><img src="${logoUrl}" alt="${NAME_HTML}"></header>`), res.body);
      assert.match(String(res.headers['content-security-policy']), /img-src 'self' data: http:\/\/localhost:8080; /);
    }
    // The logo those pages show is served to anyone.
    const served = await t.inject({ method: 'GET', url: new URL(logoUrl).pathname });
    assert.equal(served.statusCode, 200);
    assert.deepEqual(served.rawPayload, PNG);
  });

  test("a subscribe page's own logo stays that page's; other pages keep the organisation's", async () => {
    const f = await signupFixture(t.db, { logo_url: 'https://cdn.example.org/club.png' });
    const res = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}` });
    assert.ok(res.body.includes(`<header class="brand"><img src="https://cdn.example.org/club.png" alt="${f.page.title} logo"></header>`));
    assert.ok(!res.body.includes('/api/v2/logo/'));
  });

  test('the logo removed and the name cleared: pages as before', async () => {
    assert.equal((await t.inject({ method: 'DELETE', url: '/api/v2/settings/logo', headers })).statusCode, 200);
    assert.equal((await patch({ organisation_name: '' })).statusCode, 200);
    const f = await signupFixture(t.db);
    for (const res of await pages(f.page.id)) assert.ok(!res.body.includes('class="brand'));
  });
});

describe('system mail', () => {
  test('the queued confirmation mail is signed with the name, and from it when the From has no name', async () => {
    assert.equal((await patch({ organisation_name: NAME, from_name: '', from_address: 'news@club.example' })).statusCode, 200);
    const f = await signupFixture(t.db, { lists: '' });
    const page = await createPage(t.db, `Plain ${Date.now()}`, { lists: String(f.news.id) });
    assert.equal((await signUp(page.id, 'after@example.org', f.news.id)).statusCode, 303);
    const [mail] = await mailsTo('after@example.org');
    assert.ok(mail, 'the confirmation mail arrived');
    assert.equal(mail.parsed.subject, 'Please confirm your subscription');
    assert.ok((mail.parsed.text ?? '').endsWith(`\n\n-- \n${NAME}\n`), mail.parsed.text);
    assert.deepEqual(mail.parsed.from?.value, [{ name: NAME, address: 'news@club.example' }]);

    // A From name of its own wins over the organisation's.
    assert.equal((await patch({ from_name: 'The Newsletter' })).statusCode, 200);
    assert.equal((await signUp(page.id, 'named@example.org', f.news.id)).statusCode, 303);
    const [named] = await mailsTo('named@example.org');
    assert.deepEqual(named?.parsed.from?.value, [{ name: 'The Newsletter', address: 'news@club.example' }]);
    assert.ok((named?.parsed.text ?? '').endsWith(`\n\n-- \n${NAME}\n`));
  });
});
