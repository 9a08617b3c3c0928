import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { subscribePageData, subscribePages, subscribers } from '../../src/db/schema/index.js';
import { createList } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { multipart } from '../multipart.js';

/*
 * Issue 25: every way of creating a subscriber wrote html_email = false, so HTML campaigns reached everybody as their
 * text part. Now a subscriber created without saying gets SUBSCRIBER_HTML_DEFAULT (on), except through
 * POST /subscribers, whose phpList default is false (docs/api.md "Lists").
 */

/** Creates one subscriber by each way there is, `tag` in every address, and answers each one's html_email. */
async function createEveryWay(t: TestApp, tag: string) {
  const { admin, headers } = await t.adminWithSession();
  const api = await t.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email: `api-${tag}@example.com` } });
  assert.equal(api.statusCode, 201, api.body);

  const importCsv = async (email: string, query = '') => {
    const form = multipart([{ name: 'file', filename: 'a.csv', content: `email\n${email}\n` }]);
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/subscribers/import?send_confirmation=false${query}`,
      headers: { ...headers, ...form.headers },
      payload: form.payload,
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  await importCsv(`import-${tag}@example.com`);
  await importCsv(`import-html-${tag}@example.com`, '&html_email=1');
  await importCsv(`import-text-${tag}@example.com`, '&html_email=0');

  const list = await createList(t.db, { isPublic: true });
  const members = await t.inject({
    method: 'POST',
    url: `/api/v2/lists/${list.id}/subscribers`,
    headers,
    payload: { emails: [`members-${tag}@example.com`], auto_confirm: true, create_unknown: true },
  });
  assert.equal(members.statusCode, 201, members.body);

  const [page] = await t.db.insert(subscribePages).values({ title: 'Join', active: true, ownerId: admin.id }).returning();
  await t.db.insert(subscribePageData).values({ pageId: page!.id, name: 'lists', data: String(list.id) });
  const viaPage = await t.inject({
    method: 'POST',
    url: `/api/v2/public/subscribe-pages/${page!.id}`,
    payload: { email: `page-${tag}@example.com`, list_id: list.id },
  });
  assert.equal(viaPage.statusCode, 204, viaPage.body);
  const viaForm = await t.inject({
    method: 'POST',
    url: `/subscribe/${page!.id}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email: `form-${tag}@example.com`, list: String(list.id) }).toString(),
  });
  assert.equal(viaForm.statusCode, 303, viaForm.body);

  const ways = ['api', 'import', 'import-html', 'import-text', 'members', 'page', 'form'];
  const found: Record<string, boolean> = {};
  for (const way of ways) {
    const [row] = await t.db
      .select()
      .from(subscribers)
      .where(eq(subscribers.email, `${way}-${tag}@example.com`));
    assert.ok(row, `${way} created its subscriber`);
    found[way] = row.htmlEmail;
  }
  const defaults = await t.inject({ method: 'GET', url: '/api/v2/subscribers/defaults', headers });
  assert.equal(defaults.statusCode, 200, defaults.body);
  return { found, defaults: defaults.json() as unknown };
}

describe('html_email of new subscribers', () => {
  let on: TestApp;
  let off: TestApp;
  before(async () => {
    on = await startTestApp();
    off = await startTestApp({ subscriberHtmlDefault: false });
  });
  after(async () => {
    await on?.close();
    await off?.close();
  });

  test('by default every way but POST /subscribers gives HTML mail; the import option chooses', async () => {
    const { found, defaults } = await createEveryWay(on, 'on');
    assert.deepEqual(found, {
      api: false, // phpList's documented default (reference §5.5)
      import: true,
      'import-html': true,
      'import-text': false,
      members: true,
      page: true,
      form: true,
    });
    assert.deepEqual(defaults, { html_email: true });
  });

  test('SUBSCRIBER_HTML_DEFAULT=off: plain text unless told otherwise', async () => {
    const { found, defaults } = await createEveryWay(off, 'off');
    assert.deepEqual(found, { api: false, import: false, 'import-html': true, 'import-text': false, members: false, page: false, form: false });
    assert.deepEqual(defaults, { html_email: false });
  });

  test('GET /subscribers/defaults needs a session with the subscribers privilege', async () => {
    assert.equal((await on.inject({ method: 'GET', url: '/api/v2/subscribers/defaults' })).statusCode, 403);
    const { headers } = await on.adminWithSession({ superUser: false, privileges: { subscribers: false } });
    const res = await on.inject({ method: 'GET', url: '/api/v2/subscribers/defaults', headers });
    assert.deepEqual([res.statusCode, res.json()], [403, { message: 'You are not allowed to view subscribers.' }]);
  });

  test('an import that updates an existing subscriber leaves its html_email alone without a cell', async () => {
    const { headers } = await on.adminWithSession();
    const email = 'keeps-text@example.com';
    await on.db.insert(subscribers).values({ email, uniqueId: 'f'.repeat(32), confirmed: true, htmlEmail: false });
    const form = multipart([{ name: 'file', filename: 'a.csv', content: `email,extra_data\n${email},x\n` }]);
    const res = await on.inject({
      method: 'POST',
      url: '/api/v2/subscribers/import?update_existing=1',
      headers: { ...headers, ...form.headers },
      payload: form.payload,
    });
    assert.equal(res.statusCode, 200, res.body);
    const [row] = await on.db.select().from(subscribers).where(eq(subscribers.email, email));
    assert.deepEqual([row!.htmlEmail, row!.extraData], [false, 'x']);
  });
});
