import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, asc, eq } from 'drizzle-orm';
import {
  attributeDefinitions,
  attributeOptions,
  subscriberAttributeValues,
  subscriberHistory,
  subscribers,
  subscriptions,
} from '../../src/db/schema/index.js';
import { encodePreferencesToken, today } from '../../src/sending/preferences-link.js';
import { encodeUnsubscribeToken } from '../../src/subscription/unsubscribe-token.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { mailQueueDrained, startTestApp, type TestApp } from '../helper.js';

/*
 * The preference centre over HTTP (both databases): forged and expired links, every change and its history entry,
 * the address change through a real mail, the client limit, and that an address change says nothing about the
 * address asked for.
 */

let t: TestApp;
let n = 0;
/** Each test its own client address, so the per-client limit of one does not spill into another. */
const client = () => `198.51.100.${++n}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

before(async () => {
  t = await startTestApp({ preferences: { linkDays: 30, clientLimit: 8 } });
});
after(async () => t?.close());

const tokenOf = (uniqueId: string, day = today()) => encodePreferencesToken(t.ctx.secrets.linkToken, uniqueId, day);

async function post(token: string, fields: [string, string][], remoteAddress: string, headers: Record<string, string> = {}) {
  return t.inject({
    method: 'POST',
    url: `/preferences/${token}`,
    headers: { ...FORM, ...headers },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress,
  });
}

async function historyOf(subscriberId: number) {
  const rows = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, subscriberId)).orderBy(asc(subscriberHistory.id));
  return rows.map((r) => [r.summary, r.detail]);
}

async function listIdsOf(subscriberId: number) {
  const rows = await t.db.select({ id: subscriptions.listId }).from(subscriptions).where(eq(subscriptions.subscriberId, subscriberId));
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

describe('links that do not work', () => {
  test('forged, garbled and other-purpose tokens: 404 page saying what to do, with the page headers', async () => {
    const sub = await createSubscriber(t.db);
    const good = tokenOf(sub.uniqueId);
    const forged = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    const unsubscribe = encodeUnsubscribeToken(t.ctx.secrets.linkToken, { uniqueId: sub.uniqueId, campaignId: 1 });
    for (const token of [forged, 'short', unsubscribe, 'x'.repeat(300), '%00abc']) {
      const res = await t.inject({ method: 'GET', url: `/preferences/${token}`, headers: { 'accept-language': 'en' } });
      assert.equal(res.statusCode, 404, token);
      assert.match(res.body, /<h1>This link does not work<\/h1>/);
      assert.match(res.body, /use the link at the bottom of any recent mail/);
      assert.ok(!res.body.includes(sub.email));
      assert.match(res.headers['content-security-policy'] as string, /script-src 'none'/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
    }
    // A forged link changes nothing either.
    const res = await post(forged, [['action', 'leave']], client());
    assert.equal(res.statusCode, 404);
  });

  test('a link older than PREFERENCES_LINK_DAYS: 410 page; German by Accept-Language', async () => {
    const sub = await createSubscriber(t.db);
    await subscribe(t.db, (await createList(t.db)).id, sub.id);
    const old = tokenOf(sub.uniqueId, today() - 31);
    const res = await t.inject({ method: 'GET', url: `/preferences/${old}`, headers: { 'accept-language': 'fr;q=0.9, de-AT;q=0.8' } });
    assert.equal(res.statusCode, 410);
    assert.match(res.body, /<html lang="de">/);
    assert.match(res.body, /Dieser Link ist abgelaufen/);
    const leave = await post(old, [['action', 'leave']], client());
    assert.equal(leave.statusCode, 410);
    assert.equal((await listIdsOf(sub.id)).length, 1, 'nothing changed');
    // Within the lifetime the same subscriber's link works.
    assert.equal((await t.inject({ method: 'GET', url: `/preferences/${tokenOf(sub.uniqueId, today() - 29)}` })).statusCode, 200);
  });
});

describe('the page and its changes', () => {
  test('shows the public lists and the ones the subscriber is on, never another non-public list', async () => {
    const sub = await createSubscriber(t.db, { email: 'prefs-<b>@example.com' });
    const open = await createList(t.db, { name: 'Open & Friendly', description: 'Weekly news' });
    const hiddenMember = await createList(t.db, { name: 'Hidden member list', isPublic: false });
    const hiddenOther = await createList(t.db, { name: 'Hidden other list', isPublic: false });
    await subscribe(t.db, hiddenMember.id, sub.id);
    const res = await t.inject({ method: 'GET', url: `/preferences/${tokenOf(sub.uniqueId)}` });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /prefs-&lt;b&gt;@example\.com/);
    assert.match(res.body, new RegExp(`value="${open.id}"><label[^>]*>Open &amp; Friendly<span class="desc">Weekly news</span>`));
    assert.match(res.body, new RegExp(`value="${hiddenMember.id}" checked>`));
    assert.ok(!res.body.includes(hiddenOther.name));
    assert.ok(!/<script/i.test(res.body));
  });

  test('lists: joins ticked public lists, leaves unticked ones, never joins a non-public one; history names them', async () => {
    const sub = await createSubscriber(t.db);
    const a = await createList(t.db, { name: 'Alpha' });
    const b = await createList(t.db, { name: 'Beta' });
    const hidden = await createList(t.db, { name: 'Hidden', isPublic: false });
    await subscribe(t.db, b.id, sub.id);
    const token = tokenOf(sub.uniqueId);
    const res = await post(
      token,
      [
        ['action', 'lists'],
        ['list', String(a.id)],
        ['list', String(hidden.id)],
        ['list', 'junk'],
      ],
      client(),
    );
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/preferences/${token}?saved=lists`);
    assert.deepEqual(await listIdsOf(sub.id), [a.id]);
    assert.deepEqual(await historyOf(sub.id), [
      ['Subscribed', `Joined "Alpha" (#${a.id}) in the preference centre`],
      ['Unsubscribed', `Left "Beta" (#${b.id}) in the preference centre`],
    ]);
    const page = await t.inject({ method: 'GET', url: res.headers.location as string });
    assert.match(page.body, /role="status"><p>Your lists are saved\.<\/p>/);
    // The same again changes nothing and records nothing.
    await post(
      token,
      [
        ['action', 'lists'],
        ['list', String(a.id)],
      ],
      client(),
    );
    assert.equal((await historyOf(sub.id)).length, 2);
  });

  test('attributes: only the editable ones; a bad or missing value comes back beside its field with the input kept', async () => {
    const sub = await createSubscriber(t.db);
    const [nick] = await t.db
      .insert(attributeDefinitions)
      .values({ name: 'Nickname', type: 'textline', subscriberEditable: true, listOrder: 1 })
      .returning();
    const [born] = await t.db
      .insert(attributeDefinitions)
      .values({ name: 'Birthday', type: 'date', subscriberEditable: true, listOrder: 2 })
      .returning();
    const [colour] = await t.db
      .insert(attributeDefinitions)
      .values({ name: 'Colour', type: 'select', subscriberEditable: true, required: true, listOrder: 3 })
      .returning();
    const [news] = await t.db
      .insert(attributeDefinitions)
      .values({ name: 'Likes news', type: 'checkbox', subscriberEditable: true, listOrder: 4 })
      .returning();
    const [secret] = await t.db.insert(attributeDefinitions).values({ name: 'Internal score', type: 'textline' }).returning();
    const [red] = await t.db.insert(attributeOptions).values({ definitionId: colour!.id, name: 'Red' }).returning();
    const token = tokenOf(sub.uniqueId);

    const page = await t.inject({ method: 'GET', url: `/preferences/${token}` });
    assert.match(page.body, /Nickname/);
    assert.ok(!page.body.includes('Internal score'));

    const bad = await post(
      token,
      [
        ['action', 'attributes'],
        [`attr_${nick!.id}`, 'Zed <z>'],
        [`attr_${born!.id}`, '2020-02-31'],
        [`attr_${secret!.id}`, '99'],
      ],
      client(),
    );
    assert.equal(bad.statusCode, 422);
    assert.match(
      bad.body,
      new RegExp(`<p class="error" id="attr-${born!.id}-error">&quot;2020-02-31&quot; is not a date \\(expected YYYY-MM-DD\\)\\.</p>`),
    );
    assert.match(bad.body, new RegExp(`<p class="error" id="attr-${colour!.id}-error">Please fill in this field\\.</p>`));
    assert.match(bad.body, /value="Zed &lt;z&gt;"/, 'input kept');
    assert.equal(
      (await t.db.select().from(subscriberAttributeValues).where(eq(subscriberAttributeValues.subscriberId, sub.id))).length,
      0,
      'nothing stored',
    );

    const good = await post(
      token,
      [
        ['action', 'attributes'],
        [`attr_${nick!.id}`, 'Zed'],
        [`attr_${born!.id}`, '2000-01-02'],
        [`attr_${colour!.id}`, String(red!.id)],
        [`attr_${news!.id}`, 'on'],
        [`attr_${secret!.id}`, '99'],
      ],
      client(),
    );
    assert.equal(good.statusCode, 303);
    const values = await t.db
      .select({ id: subscriberAttributeValues.definitionId, value: subscriberAttributeValues.value })
      .from(subscriberAttributeValues)
      .where(eq(subscriberAttributeValues.subscriberId, sub.id))
      .orderBy(asc(subscriberAttributeValues.definitionId));
    assert.deepEqual(values, [
      { id: nick!.id, value: 'Zed' },
      { id: born!.id, value: '2000-01-02' },
      { id: colour!.id, value: String(red!.id) },
      { id: news!.id, value: '1' },
    ]);
    assert.deepEqual(await historyOf(sub.id), [['Updated', 'Changed "Nickname", "Birthday", "Colour", "Likes news" in the preference centre']]);
    // Unticking the checkbox (nothing sent for it) stores 0.
    await post(
      token,
      [
        ['action', 'attributes'],
        [`attr_${nick!.id}`, 'Zed'],
        [`attr_${born!.id}`, '2000-01-02'],
        [`attr_${colour!.id}`, String(red!.id)],
      ],
      client(),
    );
    const [after] = await t.db
      .select()
      .from(subscriberAttributeValues)
      .where(and(eq(subscriberAttributeValues.subscriberId, sub.id), eq(subscriberAttributeValues.definitionId, news!.id)));
    assert.equal(after!.value, '0');
    await t.db.update(attributeDefinitions).set({ subscriberEditable: false }).where(eq(attributeDefinitions.subscriberEditable, true));
  });

  test('format and leaving everything: stored, with history; one-click of the page posts nothing else', async () => {
    const sub = await createSubscriber(t.db);
    const l1 = await createList(t.db, { name: 'One' });
    const l2 = await createList(t.db, { name: 'Two', isPublic: false });
    await subscribe(t.db, l1.id, sub.id);
    await subscribe(t.db, l2.id, sub.id);
    const token = tokenOf(sub.uniqueId);
    assert.equal(
      (
        await post(
          token,
          [
            ['action', 'format'],
            ['format', 'text'],
          ],
          client(),
        )
      ).statusCode,
      303,
    );
    const [row] = await t.db.select().from(subscribers).where(eq(subscribers.id, sub.id));
    assert.equal(row!.htmlEmail, false);
    assert.equal((await post(token, [['action', 'leave']], client())).statusCode, 303);
    assert.deepEqual(await listIdsOf(sub.id), []);
    assert.deepEqual(await historyOf(sub.id), [
      ['Updated', 'Chose plain-text mail in the preference centre'],
      ['Unsubscribed', `Left all lists ("One" (#${l1.id}), "Two" (#${l2.id})) in the preference centre`],
    ]);
    // A body that is no form, or JSON: the page, nothing changed.
    const json = await t.inject({
      method: 'POST',
      url: `/preferences/${token}`,
      payload: { action: 'format', format: 'html' },
      remoteAddress: client(),
    });
    assert.equal(json.statusCode, 200);
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, sub.id)))[0]!.htmlEmail, false);
  });
});

describe('address change', () => {
  test('confirmation mail to the new address; the change happens only when its link is confirmed', async () => {
    const sub = await createSubscriber(t.db);
    const token = tokenOf(sub.uniqueId);
    const before = t.smtp.messages.length;
    const res = await post(
      token,
      [
        ['action', 'email'],
        ['email', 'new-home@example.com'],
      ],
      client(),
      { 'accept-language': 'de' },
    );
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Falls new-home@example\.com verwendet werden kann/);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.envelope.to, ['new-home@example.com']);
    assert.equal(mail!.parsed.subject, 'Bestätigen Sie Ihre neue E-Mail-Adresse');
    const link = /http:\/\/\S+\/preferences\/email\/[A-Za-z0-9_-]+/.exec(mail!.parsed.text ?? '')![0];
    const path = new URL(link).pathname;
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, sub.id)))[0]!.email, sub.email, 'not yet');

    const ask = await t.inject({ method: 'GET', url: path });
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /new-home@example\.com/);
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, sub.id)))[0]!.email, sub.email, 'GET changes nothing');
    const done = await t.inject({ method: 'POST', url: path, headers: FORM, payload: 'confirm=yes', remoteAddress: client() });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /From now on we send our mail to new-home@example\.com/);
    assert.match(done.body, new RegExp(`href="${t.config.publicUrl}/preferences/${token}"`));
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, sub.id)))[0]!.email, 'new-home@example.com');
    assert.deepEqual(
      (await historyOf(sub.id)).map((h) => h[1]),
      [
        'Asked in the preference centre to change the e-mail address; confirmation sent to the new address',
        'Changed the e-mail address in the preference centre (confirmed by the new address)',
      ],
    );
    // A forged change link: the error page.
    assert.equal(
      (await t.inject({ method: 'POST', url: `${path}x`, headers: FORM, payload: 'confirm=yes', remoteAddress: client() })).statusCode,
      404,
    );
  });

  test('an address someone has: the same answer (apart from the address), no mail; invalid input: 422 beside the field', async () => {
    const sub = await createSubscriber(t.db);
    const other = await createSubscriber(t.db, { email: 'Taken-Addr@example.com' });
    const token = tokenOf(sub.uniqueId);
    // The earlier test's change mailed its old address an undo link after its answer: let it arrive first.
    await mailQueueDrained(t);
    const before = t.smtp.messages.length;
    const taken = await post(
      token,
      [
        ['action', 'email'],
        ['email', 'taken-addr@example.com'],
      ],
      client(),
    );
    const free = await post(
      token,
      [
        ['action', 'email'],
        ['email', 'freeaddr9@example.com'],
      ],
      client(),
    );
    assert.equal(taken.statusCode, free.statusCode);
    assert.equal(taken.body.replace('taken-addr@example.com', 'X'), free.body.replace('freeaddr9@example.com', 'X'));
    await t.smtp.waitFor(before + 1);
    assert.deepEqual(
      t.smtp.messages.slice(before).map((m) => m.envelope.to),
      [['freeaddr9@example.com']],
    );
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, other.id)))[0]!.email, 'Taken-Addr@example.com');

    const invalid = await post(
      token,
      [
        ['action', 'email'],
        ['email', 'not an address'],
      ],
      client(),
    );
    assert.equal(invalid.statusCode, 422);
    assert.match(invalid.body, /<p class="error" id="email-error">Enter an e-mail address like name@example\.com\.<\/p>/);
    assert.match(invalid.body, /value="not an address"/);
  });
});

describe('abuse', () => {
  test('PREFERENCES_CLIENT_LIMIT changes per client in 10 minutes, then the 429 page with Retry-After', async () => {
    const sub = await createSubscriber(t.db);
    const token = tokenOf(sub.uniqueId);
    const ip = client();
    for (let i = 0; i < 8; i++)
      assert.equal(
        (
          await post(
            token,
            [
              ['action', 'format'],
              ['format', 'html'],
            ],
            ip,
          )
        ).statusCode,
        303,
      );
    const res = await post(
      token,
      [
        ['action', 'format'],
        ['format', 'text'],
      ],
      ip,
    );
    assert.equal(res.statusCode, 429);
    assert.ok(Number(res.headers['retry-after']) > 0);
    assert.match(res.body, /Please wait a moment/);
    assert.equal((await t.db.select().from(subscribers).where(eq(subscribers.id, sub.id)))[0]!.htmlEmail, true, 'nothing changed');
    // Another client is not held up.
    assert.equal(
      (
        await post(
          token,
          [
            ['action', 'format'],
            ['format', 'html'],
          ],
          client(),
        )
      ).statusCode,
      303,
    );
  });
});
