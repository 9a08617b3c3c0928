import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import {
  administrators,
  attributeDefinitions,
  attributeOptions,
  blacklist,
  subscribePageData,
  subscribePages,
  subscriberAttributeValues,
  subscriberHistory,
  subscribers,
  subscriptions,
} from '../../src/db/schema/index.js';
import { toAdministrator } from '../../src/identity/administrator.repository.js';
import { encodeUnsubscribeToken } from '../../src/subscription/unsubscribe-token.js';
import { createAdmin, createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let admin: Awaited<ReturnType<TestApp['adminWithSession']>>['admin'];
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ admin, headers } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } }));
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const NOT_FOUND = { message: 'Subscribe page not found' };

async function createPage(values: Partial<typeof subscribePages.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(subscribePages)
    .values({ title: 'Welcome Page', active: true, ownerId: admin.id, ...values })
    .returning();
  return row!;
}

async function setData(pageId: number, data: Record<string, string | null>) {
  for (const [name, value] of Object.entries(data)) {
    await t.db
      .insert(subscribePageData)
      .values({ pageId, name, data: value })
      .onConflictDoUpdate({ target: [subscribePageData.pageId, subscribePageData.name], set: { data: value } });
  }
}

const pageBody = (page: { id: number; title: string; active: boolean }, owner: typeof admin | null) => ({
  id: page.id,
  title: page.title,
  active: page.active,
  owner: owner ? toAdministrator(owner) : null,
});

describe('subscribe pages: authentication and privilege', () => {
  const endpoints = (id: number) =>
    [
      ['GET', '/api/v2/subscribe-pages', 'You are not allowed to view subscribe pages.'],
      ['POST', '/api/v2/subscribe-pages', 'You are not allowed to create subscribe pages.'],
      ['GET', `/api/v2/subscribe-pages/${id}`, 'You are not allowed to view subscribe pages.'],
      ['PUT', `/api/v2/subscribe-pages/${id}`, 'You are not allowed to update subscribe pages.'],
      ['DELETE', `/api/v2/subscribe-pages/${id}`, 'You are not allowed to delete subscribe pages.'],
      ['GET', `/api/v2/subscribe-pages/${id}/data`, 'You are not allowed to view subscribe page data.'],
      ['PUT', `/api/v2/subscribe-pages/${id}/data`, 'You are not allowed to update subscribe page data.'],
    ] as const;

  test('every admin endpoint without a session → 403, also for unknown pages', async () => {
    const page = await createPage();
    for (const [method, url] of [...endpoints(page.id), ...endpoints(999_999)]) {
      const res = await t.inject({ method, url, payload: { title: 'x', name: 'x' } });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.deepEqual(res.json(), NO_SESSION);
    }
  });

  test("without the subscribers privilege → 403 with phpList's message; nothing changes", async () => {
    const page = await createPage();
    const other = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    for (const [method, url, message] of endpoints(page.id)) {
      const res = await t.inject({ method, url, headers: other.headers, payload: { title: 'changed', name: 'intro' } });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.deepEqual(res.json(), { message });
    }
    const [row] = await t.db.select().from(subscribePages).where(eq(subscribePages.id, page.id));
    assert.equal(row!.title, 'Welcome Page');
  });
});

describe('POST /api/v2/subscribe-pages', () => {
  test('201 with the page, owned by the caller; active defaults to false', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribe-pages',
      headers,
      payload: { title: 'new-page@example.org', active: true },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.ok(Number.isInteger(body.id) && body.id >= 1);
    assert.deepEqual(body, pageBody({ id: body.id, title: 'new-page@example.org', active: true }, admin));

    const plain = await t.inject({ method: 'POST', url: '/api/v2/subscribe-pages', headers, payload: { title: '  Plain  ' } });
    assert.equal(plain.statusCode, 201);
    assert.deepEqual(plain.json(), pageBody({ id: plain.json().id, title: 'Plain', active: false }, admin));
  });

  test('bad bodies → 422 naming the field, malformed JSON → 400; nothing stored', async () => {
    const [{ n: before }] = (await t.db.select({ n: sql<number>`count(*)::int` }).from(subscribePages)) as [{ n: number }];
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { title: ['This value should not be blank.'] }],
      [{ title: '   ' }, { title: ['This value should not be blank.'] }],
      [{ title: 'x'.repeat(256) }, { title: ['This value is too long. It should have 255 characters or less.'] }],
      [{ title: 'ok', active: 'yes' }, { active: ['This value should be of type boolean.'] }],
      [{ title: 5 }, { title: ['This value should be of type string.'] }],
    ];
    for (const [payload, errors] of cases) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/subscribe-pages', headers, payload: payload as object });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors });
    }
    const bad = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribe-pages',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"title":',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /^Invalid JSON: /);
    const [{ n: after }] = (await t.db.select({ n: sql<number>`count(*)::int` }).from(subscribePages)) as [{ n: number }];
    assert.equal(after, before);
  });
});

describe('GET /api/v2/subscribe-pages and /{id}', () => {
  test('one page with its owner; unknown → 404; a page whose owner was deleted has owner null', async () => {
    const page = await createPage();
    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${page.id}`, headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), pageBody(page, admin));

    const missing = await t.inject({ method: 'GET', url: '/api/v2/subscribe-pages/999999', headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND);

    const gone = await createAdmin(t.db);
    const orphan = await createPage({ ownerId: gone.id, title: 'Orphan', active: false });
    await t.db.delete(administrators).where(eq(administrators.id, gone.id));
    const orphanRes = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${orphan.id}`, headers });
    assert.deepEqual(orphanRes.json(), pageBody(orphan, null));
  });

  test('the list: every page, whoever owns it, in cursor pages by id', async () => {
    const other = await createAdmin(t.db);
    const a = await createPage({ title: 'List A' });
    const b = await createPage({ title: 'List B', ownerId: other.id, active: false });
    const all = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages?limit=100`, headers });
    assert.equal(all.statusCode, 200);
    const [{ n: total }] = (await t.db.select({ n: sql<number>`count(*)::int` }).from(subscribePages)) as [{ n: number }];
    assert.equal(all.json().pagination.total, total);

    const page1 = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages?after_id=${a.id - 1}&limit=1`, headers });
    assert.deepEqual(page1.json(), {
      items: [pageBody(a, admin)],
      pagination: { total, limit: 1, has_more: true, next_cursor: a.id },
    });
    const page2 = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages?after_id=${a.id}&limit=1`, headers });
    assert.deepEqual(page2.json().items, [pageBody(b, other)]);
    const end = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages?after_id=${b.id}`, headers });
    assert.deepEqual(end.json(), { items: [], pagination: { total, limit: 25, has_more: false, next_cursor: null } });
  });
});

describe('PUT /api/v2/subscribe-pages/{id}', () => {
  test('replaces title and active and makes the caller the owner', async () => {
    const other = await createAdmin(t.db);
    const page = await createPage({ ownerId: other.id, active: true });
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/subscribe-pages/${page.id}`,
      headers,
      payload: { title: 'updated-page@example.org', active: false },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), pageBody({ id: page.id, title: 'updated-page@example.org', active: false }, admin));

    await t.db.update(subscribePages).set({ active: true }).where(eq(subscribePages.id, page.id));
    const noActive = await t.inject({ method: 'PUT', url: `/api/v2/subscribe-pages/${page.id}`, headers, payload: { title: 'T' } });
    assert.deepEqual(noActive.json(), pageBody({ id: page.id, title: 'T', active: false }, admin));
  });

  test('unknown page → 404 before the body is looked at; bad body → 422', async () => {
    const missing = await t.inject({ method: 'PUT', url: '/api/v2/subscribe-pages/999999', headers, payload: {} });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND);
    const page = await createPage();
    const bad = await t.inject({ method: 'PUT', url: `/api/v2/subscribe-pages/${page.id}`, headers, payload: { active: true } });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json(), { message: 'Validation failed', errors: { title: ['This value should not be blank.'] } });
  });
});

describe('DELETE /api/v2/subscribe-pages/{id}', () => {
  test('204 and the page and its data are gone; again → 404', async () => {
    const page = await createPage();
    await setData(page.id, { intro: 'Hi' });
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/subscribe-pages/${page.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const after = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${page.id}`, headers });
    assert.equal(after.statusCode, 404);
    assert.deepEqual(await t.db.select().from(subscribePageData).where(eq(subscribePageData.pageId, page.id)), []);
    const again = await t.inject({ method: 'DELETE', url: `/api/v2/subscribe-pages/${page.id}`, headers });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), NOT_FOUND);
  });
});

describe('GET and PUT /api/v2/subscribe-pages/{id}/data', () => {
  test('settings by name: created, replaced, cleared; listed in name order', async () => {
    const page = await createPage();
    const empty = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${page.id}/data`, headers });
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), []);

    const put = (payload: object) => t.inject({ method: 'PUT', url: `/api/v2/subscribe-pages/${page.id}/data`, headers, payload });
    const first = await put({ name: 'intro_text', value: 'Hello world' });
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { id: page.id, name: 'intro_text', data: 'Hello world' });
    assert.deepEqual((await put({ name: 'intro_text', value: 'Hello again' })).json(), {
      id: page.id,
      name: 'intro_text',
      data: 'Hello again',
    });
    assert.deepEqual((await put({ name: 'footer' })).json(), { id: page.id, name: 'footer', data: null });
    assert.deepEqual((await put({ name: 'button', value: null })).json(), { id: page.id, name: 'button', data: null });

    const all = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${page.id}/data`, headers });
    assert.deepEqual(all.json(), [
      { id: page.id, name: 'button', data: null },
      { id: page.id, name: 'footer', data: null },
      { id: page.id, name: 'intro_text', data: 'Hello again' },
    ]);
  });

  test('missing or bad name → 422; unknown page → 404 for both', async () => {
    const page = await createPage();
    for (const [payload, errors] of [
      [{ value: 'x' }, { name: ['This value should not be blank.'] }],
      [{ name: '' }, { name: ['This value should not be blank.'] }],
      [{ name: 'intro', value: 3 }, { value: ['This value should be of type string.'] }],
    ] as const) {
      const res = await t.inject({ method: 'PUT', url: `/api/v2/subscribe-pages/${page.id}/data`, headers, payload });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors });
    }
    for (const method of ['GET', 'PUT'] as const) {
      const res = await t.inject({ method, url: '/api/v2/subscribe-pages/999999/data', headers, payload: {} });
      assert.equal(res.statusCode, 404, method);
      assert.deepEqual(res.json(), NOT_FOUND);
    }
  });
});

/** A live page offering two public lists (and naming a private and a missing one), with two attributes. */
async function livePage() {
  const news = await createList(t.db, { name: 'News', description: 'All the news', isPublic: true });
  const tech = await createList(t.db, { name: 'Tech', isPublic: true });
  const hidden = await createList(t.db, { name: 'Hidden', isPublic: false });
  const unique = Math.random().toString(36).slice(2, 8);
  const [firstName] = await t.db
    .insert(attributeDefinitions)
    .values({ name: `First name ${unique}`, type: 'textline', required: true })
    .returning();
  const [city] = await t.db
    .insert(attributeDefinitions)
    .values({ name: `City ${unique}`, type: 'textline' })
    .returning();
  const page = await createPage({ title: 'Join us' });
  await setData(page.id, {
    intro: 'Welcome!',
    lists: `${tech.id}, ${news.id},${hidden.id},999999,junk`,
    attributes: `${firstName!.id},${city!.id}`,
  });
  return { page, news, tech, hidden, firstName: firstName!, city: city! };
}

async function subscriberNamed(email: string) {
  const [row] = await t.db
    .select()
    .from(subscribers)
    .where(sql`lower(${subscribers.email}) = lower(${email})`);
  return row;
}

async function listIdsOf(subscriberId: number) {
  const rows = await t.db.select().from(subscriptions).where(eq(subscriptions.subscriberId, subscriberId));
  return rows.map((r) => r.listId).sort((a, b) => a - b);
}

describe('GET /api/v2/public/subscribe-pages/{id}', () => {
  test('an active page: its texts, its public lists and its attributes, without a session', async () => {
    const { page, news, tech, hidden, firstName, city } = await livePage();
    const res = await t.inject({ method: 'GET', url: `/api/v2/public/subscribe-pages/${page.id}` });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: page.id,
      title: 'Join us',
      data: {
        attributes: `${firstName.id},${city.id}`,
        intro: 'Welcome!',
        lists: `${tech.id}, ${news.id},${hidden.id},999999,junk`,
      },
      lists: [
        { id: tech.id, name: 'Tech', description: null },
        { id: news.id, name: 'News', description: 'All the news' },
      ],
      attributes: [
        { id: firstName.id, name: firstName.name, type: 'textline', required: true },
        { id: city.id, name: city.name, type: 'textline', required: false },
      ],
    });
  });

  test('inactive or unknown page → 404', async () => {
    const inactive = await createPage({ active: false });
    for (const id of [inactive.id, 999_999]) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/public/subscribe-pages/${id}` });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), NOT_FOUND);
    }
  });
});

describe('POST /api/v2/public/subscribe-pages/{id}', () => {
  test('a new address: unconfirmed subscriber, subscription, attributes, history, and the confirmation mail', async () => {
    const { page, news, firstName, city } = await livePage();
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/public/subscribe-pages/${page.id}`,
      headers: { 'user-agent': 'form/1.0' },
      payload: { email: 'Visitor@Example.com', listId: news.id, attributes: { [firstName.name]: 'Ada', [city.name.toUpperCase()]: 'Paris' } },
    });
    assert.equal(res.statusCode, 204, res.body);
    const created = (await subscriberNamed('visitor@example.com'))!;
    assert.equal(created.email, 'Visitor@Example.com');
    assert.equal(created.confirmed, false);
    assert.deepEqual(await listIdsOf(created.id), [news.id]);
    const values = await t.db
      .select({ definitionId: subscriberAttributeValues.definitionId, value: subscriberAttributeValues.value })
      .from(subscriberAttributeValues)
      .where(eq(subscriberAttributeValues.subscriberId, created.id))
      .orderBy(subscriberAttributeValues.definitionId);
    assert.deepEqual(values, [
      { definitionId: firstName.id, value: 'Ada' },
      { definitionId: city.id, value: 'Paris' },
    ]);
    const history = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, created.id));
    assert.deepEqual(
      history.map((h) => [h.summary, h.detail, h.systemInfo]),
      [
        ['Subscriber created', `Created on subscribe page "Join us" (#${page.id})`, 'User-Agent: form/1.0'],
        ['Subscribed', `Subscribed to "News" on subscribe page "Join us" (#${page.id})`, 'User-Agent: form/1.0'],
      ],
    );
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    // The mailer writes the domain part in lower case.
    assert.deepEqual(mail!.envelope.to, ['Visitor@example.com']);
    assert.equal(mail!.parsed.subject, 'Please confirm your subscription');
    assert.ok(
      mail!.parsed.text?.includes(`${t.config.publicUrl}/api/v2/subscribers/confirm?uniqueId=${created.uniqueId}&page=${page.id}`),
      mail!.parsed.text,
    );
    assert.ok(mail!.parsed.text?.includes('"News"'));

    // The same again (from another client, after the 10 minutes of the address limit): the data stays, and the
    // confirmation is sent again (the one sign-up of issue 22: the form has always done so, the first mail may be lost).
    await t.db.execute(sql`delete from send_rate_windows where key like 'page-address:%'`);
    const again = await t.inject({
      method: 'POST',
      url: `/api/v2/public/subscribe-pages/${page.id}`,
      remoteAddress: '192.0.2.201',
      payload: { email: 'visitor@example.com', list_id: news.id, attributes: { [firstName.name]: 'Eve' } },
    });
    assert.equal(again.statusCode, 204);
    await t.smtp.waitFor(before + 2);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(t.smtp.messages.length, before + 2);
    const [kept] = await t.db.select().from(subscriberAttributeValues).where(eq(subscriberAttributeValues.definitionId, firstName.id));
    assert.equal(kept!.value, 'Ada', "a public form never changes a known subscriber's data");
  });

  test('a known confirmed subscriber is not added but asked by mail; the link adds the list, once', async () => {
    const { page, tech, firstName } = await livePage();
    const known = await createSubscriber(t.db, { confirmed: true });
    const before = t.smtp.messages.length;
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/public/subscribe-pages/${page.id}`,
      payload: { email: known.email.toUpperCase(), list_id: tech.id, attributes: { [firstName.name]: 'Bob' } },
    });
    assert.equal(res.statusCode, 204);
    assert.deepEqual(await listIdsOf(known.id), [], 'no list without consent');
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.equal(mail!.parsed.subject, 'Please confirm your subscription');
    assert.ok(mail!.parsed.text?.includes('- Tech:'), mail!.parsed.text);
    const link = /(https?:\/\/\S+\/api\/v2\/public\/list-subscriptions\/confirm\?token=[A-Za-z0-9_-]+)/.exec(mail!.parsed.text ?? '')?.[1];
    assert.ok(link, mail!.parsed.text);
    const url = link.slice(t.config.publicUrl.length);
    // Opening the link (as a mail scanner does) shows a button and changes nothing (issue 22).
    for (let i = 0; i < 2; i++) {
      const shown = await t.inject({ method: 'GET', url });
      assert.equal(shown.statusCode, 200);
      assert.match(shown.body, /<h1>Join this list\?<\/h1>/);
      assert.match(shown.body, /<form method="post" action="\?token=[A-Za-z0-9_-]+">/);
      assert.ok(shown.body.includes('&quot;Tech&quot;') || shown.body.includes('"Tech"'), shown.body);
    }
    assert.deepEqual(await listIdsOf(known.id), [], 'a GET joins nothing');
    for (let i = 0; i < 2; i++) {
      const joined = await t.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'join=yes' });
      assert.equal(joined.statusCode, 200);
      assert.match(joined.body, /<h1>Thank you, your subscription is confirmed!<\/h1>/);
    }
    assert.deepEqual(await listIdsOf(known.id), [tech.id]);
    const history = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, known.id));
    assert.deepEqual(
      history.map((h) => [h.summary, h.detail]),
      [['Subscribed', 'Joined list "Tech" by the link of the confirmation mail']],
    );
    assert.deepEqual(await t.db.select().from(subscriberAttributeValues).where(eq(subscriberAttributeValues.subscriberId, known.id)), []);
    for (const method of ['GET', 'POST'] as const) {
      const forged = await t.inject({ method, url: `${url.slice(0, -2)}${url.endsWith('AA') ? 'BB' : 'AA'}` });
      assert.equal(forged.statusCode, 404);
      assert.match(forged.body, /<h1>This link is not valid or has expired.<\/h1>/);
      const missing = await t.inject({ method, url: '/api/v2/public/list-subscriptions/confirm' });
      assert.equal(missing.statusCode, 400);
    }
    // A blacklisted address's link no longer works.
    await t.db.insert(blacklist).values({ email: known.email, reason: 'asked' });
    assert.equal((await t.inject({ method: 'GET', url })).statusCode, 404);
    assert.equal((await t.inject({ method: 'POST', url })).statusCode, 404);
  });

  test('a blacklisted address (entry or flag) is never subscribed nor created, and the answer does not tell', async () => {
    const { page, news, firstName } = await livePage();
    await t.db.insert(blacklist).values({ email: 'Barred@example.com', reason: 'asked' });
    const flagged = await createSubscriber(t.db, { blacklisted: true, email: 'flagged-page@example.com' });
    const before = t.smtp.messages.length;
    for (const email of ['barred@EXAMPLE.com', 'flagged-page@example.com']) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/v2/public/subscribe-pages/${page.id}`,
        payload: { email, list_id: news.id, attributes: { [firstName.name]: 'X' } },
      });
      assert.equal(res.statusCode, 204, email);
    }
    assert.equal(await subscriberNamed('barred@example.com'), undefined);
    assert.deepEqual(await listIdsOf(flagged.id), []);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(t.smtp.messages.length, before);
  });

  test('bad input → 422 naming each field; nothing is stored', async () => {
    const { page, news, hidden, firstName } = await livePage();
    const other = await createList(t.db, { isPublic: true });
    const name = firstName.name;
    const cases: [object, Record<string, string[]>][] = [
      [{ email: 'not-an-address', list_id: news.id, attributes: { [name]: 'A' } }, { email: ['This value is not a valid email address.'] }],
      [{ list_id: news.id, attributes: { [name]: 'A' } }, { email: ['This value should not be blank.'] }],
      [{ email: 'bad-input@example.com', attributes: { [name]: 'A' } }, { list_id: ['This value should not be blank.'] }],
      [{ email: 'bad-input@example.com', list_id: 'x', attributes: { [name]: 'A' } }, { list_id: ['This value should be of type integer.'] }],
      [{ email: 'bad-input@example.com', list_id: other.id, attributes: { [name]: 'A' } }, { list_id: ['This list is not offered on this page.'] }],
      [{ email: 'bad-input@example.com', list_id: hidden.id, attributes: { [name]: 'A' } }, { list_id: ['This list is not offered on this page.'] }],
      [{ email: 'bad-input@example.com', list_id: news.id }, { [`attributes.${name}`]: ['This value should not be blank.'] }],
      [
        { email: 'bad-input@example.com', list_id: news.id, attributes: { [name]: 'A', Shoe: '42' } },
        { 'attributes.Shoe': ['This attribute is not offered on this page.'] },
      ],
      [
        { email: 'bad-input@example.com', list_id: news.id, attributes: { [name]: 7 } },
        { [`attributes.${name}`]: ['This value should be of type string.'] },
      ],
    ];
    for (const [payload, errors] of cases) {
      const res = await t.inject({ method: 'POST', url: `/api/v2/public/subscribe-pages/${page.id}`, payload });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, JSON.stringify(payload));
    }
    assert.equal(await subscriberNamed('bad-input@example.com'), undefined);
  });

  test('the values the form refuses are refused here too (one sign-up, issue 22): 422 per attribute, nothing stored', async () => {
    const { page, news, firstName, city } = await livePage();
    const [colour] = await t.db
      .insert(attributeDefinitions)
      .values({ name: `Colour ${page.id}`, type: 'select' })
      .returning();
    await t.db.insert(attributeOptions).values([
      { definitionId: colour!.id, name: 'Red', listOrder: 1 },
      { definitionId: colour!.id, name: 'Blue', listOrder: 2 },
    ]);
    const [born] = await t.db
      .insert(attributeDefinitions)
      .values({ name: `Born ${page.id}`, type: 'date' })
      .returning();
    await setData(page.id, { attributes: `${firstName.id},${city.id},${colour!.id},${born!.id}` });
    const cases: [Record<string, string>, Record<string, string[]>][] = [
      [{ [city.name]: `${'x'.repeat(30_000)}\r\n${'y'.repeat(29_998)}` }, { [`attributes.${city.name}`]: ['This value must be a single line.'] }],
      [{ [colour!.name]: '999,<b>x</b>' }, { [`attributes.${colour!.name}`]: ['This value is not one of the options.'] }],
      [{ [born!.name]: '2026-02-30' }, { [`attributes.${born!.name}`]: ['This value is not a date (expected YYYY-MM-DD).'] }],
    ];
    for (const [attributes, errors] of cases) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/v2/public/subscribe-pages/${page.id}`,
        payload: { email: 'checked@example.com', list_id: news.id, attributes: { [firstName.name]: 'A', ...attributes } },
      });
      assert.equal(res.statusCode, 422, res.body.slice(0, 200));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors });
    }
    assert.equal(await subscriberNamed('checked@example.com'), undefined);
    // An option by name is stored as its id, as the form and the admin API store it.
    const ok = await t.inject({
      method: 'POST',
      url: `/api/v2/public/subscribe-pages/${page.id}`,
      payload: {
        email: 'checked@example.com',
        list_id: news.id,
        attributes: { [firstName.name]: 'A', [colour!.name]: 'blue', [born!.name]: '1990-05-01' },
      },
    });
    assert.equal(ok.statusCode, 204, ok.body);
    const created = (await subscriberNamed('checked@example.com'))!;
    const values = await t.db
      .select({ definitionId: subscriberAttributeValues.definitionId, value: subscriberAttributeValues.value })
      .from(subscriberAttributeValues)
      .where(eq(subscriberAttributeValues.subscriberId, created.id))
      .orderBy(subscriberAttributeValues.definitionId);
    const [blue] = await t.db
      .select()
      .from(attributeOptions)
      .where(eq(attributeOptions.name, 'Blue'))
      .orderBy(sql`id desc`)
      .limit(1);
    assert.deepEqual(values, [
      { definitionId: firstName.id, value: 'A' },
      { definitionId: colour!.id, value: String(blue!.id) },
      { definitionId: born!.id, value: '1990-05-01' },
    ]);
  });

  test('inactive or unknown page → 404, before the body is validated', async () => {
    const inactive = await createPage({ active: false });
    const list = await createList(t.db);
    await setData(inactive.id, { lists: String(list.id) });
    for (const id of [inactive.id, 999_999]) {
      for (const payload of [{ email: 'inactive@example.com', list_id: list.id }, {}]) {
        const res = await t.inject({ method: 'POST', url: `/api/v2/public/subscribe-pages/${id}`, payload });
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), NOT_FOUND);
      }
    }
    assert.equal(await subscriberNamed('inactive@example.com'), undefined);
  });
});

describe('DELETE /api/v2/public/subscribe-pages/{id}', () => {
  test("with the subscriber's token: unsubscribes from the page's lists only, with a history entry", async () => {
    const { page, news, tech, hidden } = await livePage();
    const elsewhere = await createList(t.db);
    const member = await createSubscriber(t.db, { confirmed: true });
    for (const l of [news, tech, hidden, elsewhere]) await subscribe(t.db, l.id, member.id);
    const res = await t.inject({
      method: 'DELETE',
      url: `/api/v2/public/subscribe-pages/${page.id}`,
      payload: { email: member.email.toUpperCase(), token: tokenOf(member.uniqueId) },
    });
    assert.equal(res.statusCode, 204);
    assert.deepEqual(await listIdsOf(member.id), [elsewhere.id]);
    const history = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, member.id));
    assert.deepEqual(
      history.map((h) => [h.summary, h.detail]),
      [['Unsubscribed', `Unsubscribed on subscribe page "Join us" (#${page.id})`]],
    );
    // Again: nothing left to leave, still 204.
    const again = await t.inject({
      method: 'DELETE',
      url: `/api/v2/public/subscribe-pages/${page.id}`,
      payload: { email: member.email, token: tokenOf(member.uniqueId) },
    });
    assert.equal(again.statusCode, 204);
  });

  test("without a token → 422; a forged one or another subscriber's → 403; nothing changes", async () => {
    const { page, news, hidden } = await livePage();
    const member = await createSubscriber(t.db, { confirmed: true });
    const other = await createSubscriber(t.db, { confirmed: true });
    for (const l of [news, hidden]) await subscribe(t.db, l.id, member.id);
    const url = `/api/v2/public/subscribe-pages/${page.id}`;
    const none = await t.inject({ method: 'DELETE', url, payload: { email: member.email } });
    assert.equal(none.statusCode, 422);
    assert.deepEqual(none.json(), { message: 'Validation failed', errors: { token: ['This value should not be blank.'] } });
    const forged = encodeUnsubscribeToken('not the secret', { uniqueId: member.uniqueId, campaignId: 1 });
    for (const token of [forged, tokenOf(other.uniqueId), 'x']) {
      const res = await t.inject({ method: 'DELETE', url, payload: { email: member.email, token } });
      assert.equal(res.statusCode, 403, token);
      assert.deepEqual(res.json(), { message: 'A valid unsubscribe token for this address is required (the link in every mail we send).' });
    }
    assert.deepEqual(
      await listIdsOf(member.id),
      [news.id, hidden.id].sort((a, b) => a - b),
    );
  });

  test('bad address → 422; inactive or unknown page → 404', async () => {
    const { page } = await livePage();
    const bad = await t.inject({ method: 'DELETE', url: `/api/v2/public/subscribe-pages/${page.id}`, payload: { email: 'x', token: 'y' } });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json(), { message: 'Validation failed', errors: { email: ['This value is not a valid email address.'] } });
    const inactive = await createPage({ active: false });
    for (const id of [inactive.id, 999_999]) {
      const res = await t.inject({ method: 'DELETE', url: `/api/v2/public/subscribe-pages/${id}`, payload: { email: 'a@example.com', token: 'y' } });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), NOT_FOUND);
    }
  });
});

/** The unsubscribe token of a campaign mail to this subscriber (the one a visitor has). */
const tokenOf = (uniqueId: string) => encodeUnsubscribeToken(t.ctx.secrets.linkToken, { uniqueId, campaignId: 1 });

describe('public subscribe pages: limits and no disclosure (issue 17)', () => {
  const post = (pageId: number, email: string, listId: number, attributes: Record<string, string>, remoteAddress: string) =>
    t.inject({ method: 'POST', url: `/api/v2/public/subscribe-pages/${pageId}`, remoteAddress, payload: { email, list_id: listId, attributes } });

  test('alternating sign-up and leave: one mail in 10 minutes, then 429 with Retry-After', async () => {
    const { page, news, firstName } = await livePage();
    const before = t.smtp.messages.length;
    const codes: number[] = [];
    for (let round = 0; round < 5; round++) {
      const res = await post(page.id, 'pingpong@example.com', news.id, { [firstName.name]: 'P' }, `198.51.100.${round + 1}`);
      codes.push(res.statusCode);
      if (res.statusCode === 429) {
        assert.deepEqual(res.json(), { message: 'This e-mail address was signed up a moment ago. Try again later.' });
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(retryAfter > 0 && retryAfter <= 1200, `Retry-After ${retryAfter}`);
      }
      const created = (await subscriberNamed('pingpong@example.com'))!;
      const left = await t.inject({
        method: 'DELETE',
        url: `/api/v2/public/subscribe-pages/${page.id}`,
        payload: { email: 'pingpong@example.com', token: tokenOf(created.uniqueId) },
      });
      assert.equal(left.statusCode, 204);
    }
    assert.deepEqual(codes, [204, 429, 429, 429, 429]);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(t.smtp.messages.length, before + 1);
  });

  test('one client: SUBSCRIBE_PAGE_CLIENT_LIMIT (10) sign-ups in 10 minutes, then 429; another client is not held up', async () => {
    const { page, news, firstName } = await livePage();
    const codes: number[] = [];
    for (let i = 0; i < 12; i++)
      codes.push((await post(page.id, `flood-${i}@example.com`, news.id, { [firstName.name]: 'F' }, '203.0.113.50')).statusCode);
    assert.deepEqual(codes, [...Array(10).fill(204), 429, 429]);
    const refused = await post(page.id, 'flood-x@example.com', news.id, { [firstName.name]: 'F' }, '203.0.113.50');
    assert.deepEqual(refused.json(), { message: 'Too many sign-ups from your address. Try again later.' });
    assert.ok(Number(refused.headers['retry-after']) > 0);
    // The refused address was not used up by the refused client.
    assert.equal((await post(page.id, 'flood-x@example.com', news.id, { [firstName.name]: 'F' }, '203.0.113.51')).statusCode, 204);
  });

  test('a confirmed address and a new one get the same answer', async () => {
    const { page, news, firstName } = await livePage();
    const known = await createSubscriber(t.db, { confirmed: true });
    const answers = [];
    for (const [i, email] of [known.email, 'brand-new-one@example.com'].entries()) {
      const res = await post(page.id, email, news.id, { [firstName.name]: 'S' }, `192.0.2.${150 + i}`);
      answers.push({ status: res.statusCode, body: res.body, type: res.headers['content-type'] ?? null });
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0], { status: 204, body: '', type: null });
  });
});
