import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { blacklist, subscriberAttributeValues, subscriberHistory } from '../../src/db/schema/index.js';
import { styleHash } from '../../src/public/headers.js';
import { createSubscriber, subscribe } from '../factories.js';
import { mailQueueDrained, startTestApp, type TestApp } from '../helper.js';
import { createPage, forgetSignupWindows, listIdsOf, setPageData, signupFixture, subscriberByEmail } from './fixtures.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
let client = 0;
/** Each test's posts come from their own client address unless told otherwise, so the client limit stays out of the way. */
const nextClient = () => `198.18.${Math.floor(++client / 250)}.${client % 250}`;

function post(pageId: number, fields: [string, string][], options: { ip?: string; lang?: string } = {}) {
  return t.inject({
    method: 'POST',
    url: `/subscribe/${pageId}`,
    headers: { ...FORM, ...(options.lang ? { 'accept-language': options.lang } : {}) },
    remoteAddress: options.ip ?? nextClient(),
    payload: new URLSearchParams(fields).toString(),
  });
}

/** Mails that arrived for `email` (after a moment, so that a mail sent late would be counted). */
/** The mails the sink got for this address, once the mail queue has none left to send (mail leaves after the answer). */
async function mailsTo(email: string) {
  await mailQueueDrained(t);
  return t.smtp.messages.filter((m) => m.envelope.to.some((to) => to.toLowerCase() === email.toLowerCase()));
}

function assertPageHeaders(headers: Record<string, unknown>) {
  assert.equal(headers['content-type'], 'text/html; charset=utf-8');
  assert.match(String(headers['content-security-policy']), /^default-src 'none'; script-src 'none'; style-src 'self'/);
  assert.match(String(headers['content-security-policy']), /frame-ancestors 'none'/);
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.equal(headers['x-frame-options'], 'DENY');
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.equal(headers['cache-control'], 'no-store');
}

describe('GET /subscribe/{pageId}', () => {
  test("the form: the page's texts, the e-mail field, each attribute with its type's control, the public lists, the button", async () => {
    const f = await signupFixture(t.db);
    const res = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}` });
    assert.equal(res.statusCode, 200);
    assertPageHeaders(res.headers);
    const html = res.body;
    assert.match(html, /^<!doctype html><html lang="en">/);
    assert.ok(html.includes(`<h1>${f.page.title}</h1><p class="intro">News from the club.\nNo spam.</p>`));
    assert.ok(html.includes(`<form method="post" action="/subscribe/${f.page.id}" novalidate>`));
    assert.match(
      html,
      /<label for="email">E-mail address <span class="req">\(required\)<\/span><\/label><input type="email" id="email" name="email"/,
    );
    assert.ok(html.includes(`<label for="attr_${f.name.id}">${f.name.name} <span class="req">(required)</span></label>`));
    assert.ok(html.includes(`<select id="attr_${f.country.id}" name="attr_${f.country.id}">`));
    for (const o of f.country.options) assert.ok(html.includes(`<option value="${o.id}">${o.name}</option>`));
    assert.ok(html.includes(`<input type="checkbox" id="attr_${f.member.id}" name="attr_${f.member.id}" value="1">`));
    assert.ok(html.includes(`<input type="radio" id="attr_${f.level.id}-0" name="attr_${f.level.id}" value="${f.level.options[0]!.id}">`));
    assert.ok(html.includes(`<input type="checkbox" id="attr_${f.topics.id}-2" name="attr_${f.topics.id}" value="${f.topics.options[2]!.id}">`));
    assert.ok(html.includes(`<input type="date" id="attr_${f.birthday.id}" name="attr_${f.birthday.id}" value="">`));
    assert.ok(html.includes(`<textarea id="attr_${f.note.id}" name="attr_${f.note.id}" maxlength="65535"></textarea>`));
    assert.ok(html.includes(`<input type="checkbox" id="lists-0" name="list" value="${f.news.id}">`));
    assert.ok(html.includes(`<label for="lists-1">${f.events.name}<span class="desc">Invitations to our events</span></label>`));
    assert.ok(!html.includes(f.hidden.name), 'a list that is not public is not offered');
    assert.ok(html.includes('<button type="submit">Sign me up</button>'));
    assert.ok(html.includes('name="website" value="" tabindex="-1" autocomplete="off"'), 'the honeypot');
    assert.ok(!html.includes('<script'));
  });

  test('one list: no choice, the list named; emaildoubleentry asks for the address twice', async () => {
    const f = await signupFixture(t.db);
    await setPageData(t.db, f.page.id, 'lists', String(f.news.id));
    await setPageData(t.db, f.page.id, 'emaildoubleentry', 'yes');
    const html = (await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}` })).body;
    assert.ok(html.includes(`<p>You are signing up for: ${f.news.name}</p>`));
    assert.ok(!html.includes('name="list"'));
    assert.ok(html.includes('<label for="email_confirm">E-mail address again'));
  });

  test('an active page with no list to join (none set, or none public) says why instead of a form nobody can send', async () => {
    const f = await signupFixture(t.db);
    for (const lists of ['', String(f.hidden.id)]) {
      await setPageData(t.db, f.page.id, 'lists', lists);
      const res = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}` });
      assert.equal(res.statusCode, 200);
      assertPageHeaders(res.headers);
      assert.ok(res.body.includes('<h1>Sign-ups are not open yet</h1>'), res.body);
      assert.ok(res.body.includes('This form has no list to join yet, so it cannot take sign-ups.'));
      assert.ok(!res.body.includes('<form'), 'no form to fill in');
      const email = `nolists-${lists || 'none'}@example.org`;
      const sent = await post(f.page.id, [
        ['email', email],
        ['list', String(f.hidden.id)],
      ]);
      assert.equal(sent.statusCode, 409);
      assert.ok(sent.body.includes('Sign-ups are not open yet'));
      assert.equal(await subscriberByEmail(t.db, email), undefined, 'nobody was signed up');
    }
  });

  test('German from Accept-Language, or from the page setting whatever the browser says', async () => {
    const f = await signupFixture(t.db, { button: null });
    const de = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}`, headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    assert.match(de.body, /<html lang="de">/);
    assert.ok(de.body.includes('E-Mail-Adresse <span class="req">(Pflichtfeld)</span>'));
    assert.ok(de.body.includes('<button type="submit">Anmelden</button>'));
    await setPageData(t.db, f.page.id, 'language', 'de');
    const fixed = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}`, headers: { 'accept-language': 'en' } });
    assert.match(fixed.body, /<html lang="de">/);
  });

  test("the page's look: logo, accent colour and custom CSS, allowed by the CSP and nothing more", async () => {
    const f = await signupFixture(t.db, {
      logo_url: 'https://static.example.org/club.png',
      accent_color: '#0a7d4f',
      custom_css: 'h1 { font-variant: small-caps }</style><script>alert(1)</script>',
    });
    const res = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}` });
    assert.ok(res.body.includes(`<img src="https://static.example.org/club.png" alt="${f.page.title} logo">`));
    const inline = /<style>(.*?)<\/style>/s.exec(res.body)![1]!;
    assert.match(inline, /^:root\{--accent:#0a7d4f;--accent-ink:#ffffff;/);
    assert.ok(inline.endsWith('h1 { font-variant: small-caps }/style>script>alert(1)/script>'));
    assert.equal((res.body.match(/<style>/g) ?? []).length, 1);
    const csp = String(res.headers['content-security-policy']);
    assert.ok(csp.includes(`style-src 'self' ${styleHash(inline)};`));
    assert.ok(csp.includes("img-src 'self' data: https://static.example.org;"));
    // A colour that is not one, a logo that is not a URL: left out, the page still renders.
    await setPageData(t.db, f.page.id, 'accent_color', 'red;}body{display:none');
    await setPageData(t.db, f.page.id, 'logo_url', 'javascript:alert(1)');
    const plain = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}` });
    assert.equal(plain.statusCode, 200);
    assert.ok(!plain.body.includes('<img') && !plain.body.includes('--accent:'));
  });

  test('unknown, inactive or malformed page id → the 404 page', async () => {
    const inactive = await createPage(t.db, 'Closed', {}, false);
    for (const path of ['/subscribe/999999', `/subscribe/${inactive.id}`, '/subscribe/abc', '/subscribe/99999999999']) {
      const res = await t.inject({ method: 'GET', url: path });
      assert.equal(res.statusCode, 404, path);
      assertPageHeaders(res.headers);
      assert.ok(res.body.includes('<h1>Page not found</h1>'), path);
    }
    const post404 = await post(inactive.id, [['email', 'x@example.org']]);
    assert.equal(post404.statusCode, 404);
  });
});

describe('POST /subscribe/{pageId}', () => {
  test('a new address: unconfirmed subscriber on the chosen lists with its values, history, one mail, then the thank-you page', async () => {
    const f = await signupFixture(t.db);
    const email = 'Ada.New@Example.org';
    const res = await post(f.page.id, [
      ['email', email],
      ['attr_' + f.name.id, 'Ada'],
      ['attr_' + f.country.id, String(f.country.options[1]!.id)],
      ['attr_' + f.member.id, '1'],
      ['attr_' + f.level.id, String(f.level.options[1]!.id)],
      ['attr_' + f.topics.id, String(f.topics.options[0]!.id)],
      ['attr_' + f.topics.id, String(f.topics.options[2]!.id)],
      ['attr_' + f.birthday.id, '1990-12-10'],
      ['attr_' + f.note.id, 'Hello\nthere'],
      ['list', String(f.events.id)],
      ['list', String(f.hidden.id)],
      ['website', ''],
    ]);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/subscribe/${f.page.id}/thanks`);
    assert.equal(res.body, '');
    const subscriber = (await subscriberByEmail(t.db, email))!;
    assert.equal(subscriber.confirmed, false);
    assert.deepEqual(await listIdsOf(t.db, subscriber.id), [f.events.id], 'only the chosen list the page offers');
    const values = await t.db.select().from(subscriberAttributeValues).where(eq(subscriberAttributeValues.subscriberId, subscriber.id));
    assert.deepEqual(Object.fromEntries(values.map((v) => [v.definitionId, v.value])), {
      [f.name.id]: 'Ada',
      [f.country.id]: String(f.country.options[1]!.id),
      [f.member.id]: '1',
      [f.level.id]: String(f.level.options[1]!.id),
      [f.topics.id]: `${f.topics.options[0]!.id},${f.topics.options[2]!.id}`,
      [f.birthday.id]: '1990-12-10',
      [f.note.id]: 'Hello\nthere',
    });
    const entries = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, subscriber.id));
    assert.deepEqual(entries.map((e) => [e.summary, e.detail]).sort(), [
      ['Subscribed', `Subscribed to "${f.events.name}" on subscribe page "${f.page.title}" (#${f.page.id})`],
      ['Subscriber created', `Created on subscribe page "${f.page.title}" (#${f.page.id})`],
    ]);
    const mails = await mailsTo(email);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.parsed.subject, 'Please confirm your subscription');
    const text = mails[0]!.parsed.text ?? '';
    assert.ok(text.includes(`"${f.events.name}"`));
    assert.ok(text.includes(`${t.config.publicUrl}/api/v2/subscribers/confirm?uniqueId=${subscriber.uniqueId}&page=${f.page.id}`));

    const thanks = await t.inject({ method: 'GET', url: res.headers.location as string });
    assert.equal(thanks.statusCode, 200);
    assertPageHeaders(thanks.headers);
    assert.ok(thanks.body.includes('<h1>Thank you</h1><p>Thanks! Look for our mail.</p>'));
  });

  test('validation errors: the form again (422) with the input kept and each message beside its field; nothing stored or sent', async () => {
    const f = await signupFixture(t.db, { emaildoubleentry: 'yes' });
    const res = await post(f.page.id, [
      ['email', 'not-an-address'],
      ['email_confirm', 'other'],
      ['attr_' + f.name.id, ''],
      ['attr_' + f.country.id, '999999'],
      ['attr_' + f.birthday.id, '1990-02-30'],
      ['attr_' + f.note.id, 'kept <text>'],
      ['attr_' + f.topics.id, String(f.topics.options[1]!.id)],
    ]);
    assert.equal(res.statusCode, 422);
    assertPageHeaders(res.headers);
    const html = res.body;
    assert.ok(html.includes('<div class="notice error-summary" role="alert"><h2>Please check the highlighted fields.</h2>'));
    assert.ok(
      html.includes(
        '<label for="email">E-mail address <span class="req">(required)</span></label>' +
          '<p class="error" id="email-error">Please enter an e-mail address such as name@example.org.</p>' +
          '<input type="email" id="email" name="email" value="not-an-address"',
      ),
    );
    assert.match(html, /id="email" [^>]*aria-invalid="true" aria-describedby="email-error">/);
    assert.ok(!html.includes('id="email_confirm-error"'), 'no second message while the first address is not one');
    assert.ok(html.includes(`<p class="error" id="attr_${f.name.id}-error">Please fill in this field.</p>`));
    assert.ok(html.includes(`<p class="error" id="attr_${f.country.id}-error">Please choose one of the options shown.</p>`));
    assert.ok(html.includes(`<p class="error" id="attr_${f.birthday.id}-error">Please enter a date as YYYY-MM-DD.</p>`));
    assert.ok(html.includes('<p class="error" id="lists-error">Please choose at least one list.</p>'));
    assert.ok(html.includes(`>kept &lt;text&gt;</textarea>`));
    assert.ok(html.includes(`value="${f.topics.options[1]!.id}" checked>`));
    assert.ok(html.includes(`value="1990-02-30"`));
    assert.equal(await subscriberByEmail(t.db, 'not-an-address'), undefined);

    const mismatch = await post(f.page.id, [
      ['email', 'twice@example.org'],
      ['email_confirm', 'twlce@example.org'],
      ['attr_' + f.name.id, 'T'],
      ['list', String(f.news.id)],
    ]);
    assert.equal(mismatch.statusCode, 422);
    assert.ok(mismatch.body.includes('<p class="error" id="email_confirm-error">The two e-mail addresses differ.</p>'));
    assert.equal(await subscriberByEmail(t.db, 'twice@example.org'), undefined);
    assert.equal((await mailsTo('twice@example.org')).length, 0);
  });

  test('validation messages in German', async () => {
    const f = await signupFixture(t.db);
    const res = await post(f.page.id, [['email', '']], { lang: 'de' });
    assert.equal(res.statusCode, 422);
    assert.ok(res.body.includes('<p class="error" id="email-error">Bitte füllen Sie dieses Feld aus.</p>'));
    assert.ok(res.body.includes('Bitte wählen Sie mindestens eine Liste.'));
  });

  test('odd bodies never fail the request: NUL characters, repeated single fields, no body, JSON', async () => {
    const f = await signupFixture(t.db);
    const nul = await t.inject({ method: 'POST', url: `/subscribe/${f.page.id}`, headers: FORM, payload: 'email=a%00b&email=c' });
    assert.equal(nul.statusCode, 422);
    assert.ok(nul.body.includes('value="ab"'));
    const empty = await t.inject({ method: 'POST', url: `/subscribe/${f.page.id}`, remoteAddress: nextClient() });
    assert.equal(empty.statusCode, 422);
    const json = await t.inject({ method: 'POST', url: `/subscribe/${f.page.id}`, payload: { email: 5 } });
    assert.equal(json.statusCode, 422);
  });

  test('the honeypot filled: the same answer as a sign-up, and nothing happens', async () => {
    const f = await signupFixture(t.db);
    const res = await post(f.page.id, [
      ['email', 'robot@example.org'],
      ['attr_' + f.name.id, 'R'],
      ['list', String(f.news.id)],
      ['website', 'http://spam.example'],
    ]);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/subscribe/${f.page.id}/thanks`);
    assert.equal(await subscriberByEmail(t.db, 'robot@example.org'), undefined);
    assert.equal((await mailsTo('robot@example.org')).length, 0);
  });

  test('single opt-in page: a new address is confirmed at once and gets no mail', async () => {
    const f = await signupFixture(t.db, { double_optin: '0', thankyoupage: null });
    const res = await post(f.page.id, [
      ['email', 'single@example.org'],
      ['attr_' + f.name.id, 'S'],
      ['list', String(f.news.id)],
    ]);
    assert.equal(res.statusCode, 303);
    const s = (await subscriberByEmail(t.db, 'single@example.org'))!;
    assert.equal(s.confirmed, true);
    assert.deepEqual(await listIdsOf(t.db, s.id), [f.news.id]);
    assert.equal((await mailsTo('single@example.org')).length, 0);
    const thanks = await t.inject({ method: 'GET', url: `/subscribe/${f.page.id}/thanks` });
    assert.ok(thanks.body.includes('<p>Your sign-up has been received.</p>'));
  });
});

describe('sign-up form: limits and no disclosure', () => {
  const fields = (f: Awaited<ReturnType<typeof signupFixture>>, email: string): [string, string][] => [
    ['email', email],
    ['attr_' + f.name.id, 'N'],
    ['list', String(f.news.id)],
  ];

  test('new, unconfirmed, confirmed, blacklisted: the same answer; mail only to the new and the unconfirmed', async () => {
    const f = await signupFixture(t.db);
    const confirmed = await createSubscriber(t.db, { confirmed: true });
    await subscribe(t.db, f.news.id, confirmed.id);
    const unconfirmed = await createSubscriber(t.db, { confirmed: false });
    await subscribe(t.db, f.news.id, unconfirmed.id);
    const flagged = await createSubscriber(t.db, { confirmed: true, blacklisted: true });
    const listed = 'listed@example.org';
    await t.db.insert(blacklist).values({ email: listed });
    const addresses = ['brand.new@example.org', unconfirmed.email, confirmed.email, flagged.email, listed];
    const answers = [];
    for (const email of addresses) {
      const res = await post(f.page.id, fields(f, email));
      answers.push({ status: res.statusCode, location: res.headers.location, body: res.body, type: res.headers['content-type'] });
    }
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal(answers[0]!.status, 303);
    const counts = [];
    for (const email of addresses) counts.push((await mailsTo(email)).length);
    assert.deepEqual(counts, [1, 1, 0, 0, 0], 'new: confirmation; unconfirmed: confirmation again; others: nothing');
    assert.equal(await subscriberByEmail(t.db, listed), undefined);
  });

  test('a confirmed subscriber signed up for a list they are not on: one mail with a join link; nothing changed yet', async () => {
    const f = await signupFixture(t.db);
    const confirmed = await createSubscriber(t.db, { confirmed: true });
    await subscribe(t.db, f.news.id, confirmed.id);
    const res = await post(f.page.id, [
      ['email', confirmed.email],
      ['attr_' + f.name.id, 'C'],
      ['list', String(f.news.id)],
      ['list', String(f.events.id)],
    ]);
    assert.equal(res.statusCode, 303);
    assert.deepEqual(await listIdsOf(t.db, confirmed.id), [f.news.id]);
    const mails = await mailsTo(confirmed.email);
    assert.equal(mails.length, 1);
    const text = mails[0]!.parsed.text ?? '';
    assert.ok(text.includes(`- ${f.events.name}:`) && !text.includes(`- ${f.news.name}:`));
    const link = /(http\S+list-subscriptions\/confirm\?token=\S+)/.exec(text)![1]!;
    // Opening the link shows a button (a mail scanner's GET joins nothing); its POST joins.
    const shown = await t.inject({ method: 'GET', url: link.slice(t.config.publicUrl.length) });
    assert.equal(shown.statusCode, 200);
    assert.deepEqual(await listIdsOf(t.db, confirmed.id), [f.news.id]);
    const joined = await t.inject({ method: 'POST', url: link.slice(t.config.publicUrl.length) });
    assert.equal(joined.statusCode, 200);
    assert.deepEqual(
      await listIdsOf(t.db, confirmed.id),
      [f.news.id, f.events.id].sort((a, b) => a - b),
    );
  });

  test('one sign-up per address in 10 minutes: the second is the 429 page with Retry-After; after the window, the confirmation again', async () => {
    const f = await signupFixture(t.db);
    const email = 'again@example.org';
    assert.equal((await post(f.page.id, fields(f, email))).statusCode, 303);
    const second = await post(f.page.id, fields(f, email));
    assert.equal(second.statusCode, 429);
    assertPageHeaders(second.headers);
    const retryAfter = Number(second.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 1200, `Retry-After ${retryAfter}`);
    assert.ok(second.body.includes('<h1>Please wait a moment</h1>'));
    assert.ok(second.body.includes(`Please try again in ${Math.ceil(retryAfter / 60)} minutes.`));
    // The API's sign-up counts against the same address window.
    const api = await t.inject({
      method: 'POST',
      url: `/api/v2/public/subscribe-pages/${f.page.id}`,
      remoteAddress: nextClient(),
      payload: { email, list_id: f.news.id, attributes: { [f.name.name]: 'N' } },
    });
    assert.equal(api.statusCode, 429);
    assert.equal((await mailsTo(email)).length, 1);
    await forgetSignupWindows(t.db);
    assert.equal((await post(f.page.id, fields(f, email))).statusCode, 303);
    assert.equal((await mailsTo(email)).length, 2, 'an unconfirmed address signing up again gets its confirmation again');
  });

  test('one client: SUBSCRIBE_PAGE_CLIENT_LIMIT sign-ups in 10 minutes (form and API together), then the 429 page', async () => {
    await forgetSignupWindows(t.db);
    const f = await signupFixture(t.db);
    const ip = '203.0.113.77';
    const codes: number[] = [];
    for (let i = 0; i < 9; i++) codes.push((await post(f.page.id, fields(f, `flood-${i}@example.org`), { ip })).statusCode);
    const api = await t.inject({
      method: 'POST',
      url: `/api/v2/public/subscribe-pages/${f.page.id}`,
      remoteAddress: ip,
      payload: { email: 'flood-api@example.org', list_id: f.news.id, attributes: { [f.name.name]: 'N' } },
    });
    codes.push(api.statusCode);
    for (let i = 9; i < 11; i++) codes.push((await post(f.page.id, fields(f, `flood-${i}@example.org`), { ip })).statusCode);
    assert.deepEqual(codes, [...Array(9).fill(303), 204, 429, 429]);
    const refused = await post(f.page.id, fields(f, 'flood-x@example.org'), { ip, lang: 'de' });
    assert.equal(refused.statusCode, 429);
    assert.ok(refused.body.includes('<h1>Bitte einen Moment Geduld</h1>'));
    assert.ok(Number(refused.headers['retry-after']) > 0);
    // The refused address was not used up by the refused client.
    assert.equal((await post(f.page.id, fields(f, 'flood-x@example.org'))).statusCode, 303);
  });
});

describe('GET /api/v2/subscribe-pages/{pageId}/embed', () => {
  test('the form as HTML for another site: posts to the hosted form, same fields, no script; a post from elsewhere works', async () => {
    const f = await signupFixture(t.db);
    const { headers } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const res = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${f.page.id}/embed`, headers });
    assert.equal(res.statusCode, 200);
    const { html, url } = res.json() as { html: string; url: string };
    assert.equal(url, `${t.config.publicUrl}/subscribe/${f.page.id}`);
    assert.ok(
      html.startsWith(
        `<form class="mailroom-signup" method="post" action="${t.config.publicUrl}/subscribe/${f.page.id}" accept-charset="utf-8" lang="en">\n`,
      ),
    );
    assert.ok(html.includes('<input type="email" id="email" name="email"'));
    assert.ok(html.includes(`name="attr_${f.country.id}"`));
    assert.ok(html.includes(`<input type="checkbox" id="lists-1" name="list" value="${f.events.id}">`));
    assert.ok(html.includes('<div class="hp" style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden" aria-hidden="true">'));
    assert.ok(html.includes('<button type="submit">Sign me up</button>'));
    assert.ok(!/<script|<style|<link/i.test(html));
    // A browser posting the snippet from another site: no CORS involved, the answer is the hosted thank-you page.
    const posted = await t.inject({
      method: 'POST',
      url: `/subscribe/${f.page.id}`,
      headers: { ...FORM, origin: 'https://www.club.example', referer: 'https://www.club.example/join' },
      remoteAddress: nextClient(),
      payload: new URLSearchParams([
        ['email', 'embedded@example.org'],
        ['attr_' + f.name.id, 'E'],
        ['list', String(f.news.id)],
        ['website', ''],
      ]).toString(),
    });
    assert.equal(posted.statusCode, 303);
    assert.equal(posted.headers.location, `/subscribe/${f.page.id}/thanks`);
    assert.ok(await subscriberByEmail(t.db, 'embedded@example.org'));
  });

  test('without the subscribers privilege → 403; unknown page → 404; an inactive page still gets its snippet', async () => {
    const f = await signupFixture(t.db);
    const { headers: weak } = await t.adminWithSession({ superUser: false, privileges: { subscribers: false } });
    const denied = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${f.page.id}/embed`, headers: weak });
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to view subscribe pages.' }]);
    const anonymous = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${f.page.id}/embed` });
    assert.equal(anonymous.statusCode, 403);
    const { headers } = await t.adminWithSession();
    const unknown = await t.inject({ method: 'GET', url: '/api/v2/subscribe-pages/999999/embed', headers });
    assert.deepEqual([unknown.statusCode, unknown.json()], [404, { message: 'Subscribe page not found' }]);
    const inactive = await createPage(t.db, 'Later', { language: 'de' }, false);
    const later = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${inactive.id}/embed`, headers });
    assert.equal(later.statusCode, 200);
    assert.ok((later.json() as { html: string }).html.includes('<button type="submit">Anmelden</button>'));
  });
});

describe('PUT /api/v2/subscribe-pages/{id}/data: the look settings are checked', () => {
  test('bad accent colour, logo URL or language → 422 on value; good ones and empty values are stored', async () => {
    const page = await createPage(t.db, 'Look', {});
    const { headers } = await t.adminWithSession();
    const put = (name: string, value: string | null) =>
      t.inject({ method: 'PUT', url: `/api/v2/subscribe-pages/${page.id}/data`, headers, payload: { name, value } });
    for (const [name, value, message] of [
      ['accent_color', 'red', 'The accent colour must be a hex colour such as #2557d6.'],
      ['logo_url', 'javascript:alert(1)', 'The logo URL must be an absolute http(s) URL without user name or password.'],
      ['language', 'fr', 'The language must be one of en, de.'],
      ['custom_css', 'x'.repeat(20_001), 'Custom CSS may be at most 20000 characters.'],
    ] as const) {
      const res = await put(name, value);
      assert.deepEqual([res.statusCode, res.json()], [422, { message: 'Validation failed', errors: { value: [message] } }], name);
    }
    for (const [name, value] of [
      ['accent_color', '#A0b'],
      ['logo_url', 'https://x.example/l.svg'],
      ['language', 'DE'],
      ['accent_color', ''],
      ['logo_url', null],
    ] as const) {
      assert.equal((await put(name, value)).statusCode, 200, `${name}=${value}`);
    }
  });
});
