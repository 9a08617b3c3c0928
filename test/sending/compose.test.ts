import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { links, listCampaigns } from '../../src/db/schema/index.js';
import { decodeLinkToken } from '../../src/tracking/link-token.js';
import { encodeForwardToken } from '../../src/sending/forward-link.js';
import { encodePreferencesToken } from '../../src/sending/preferences-link.js';
import { decodeUnsubscribeToken } from '../../src/subscription/unsubscribe-token.js';
import { createCampaign, createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import type { ReceivedMail } from '../smtp-sink.js';
import { attachFile, createAttribute, htmlOf, rawHeader, setAttribute, uniqueEmail } from './compose-fixtures.js';

/*
 * The composer, through POST /campaigns/{id}/test-send into the SMTP sink, each mail parsed back with mailparser.
 * (Bad inputs, headers and the response of the route itself: test-send.test.ts.)
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const PUBLIC = 'http://localhost:8080';

/** Test-sends the campaign to one address and answers the mail the sink received. */
async function sendTo(campaignId: number, email: string): Promise<ReceivedMail> {
  const before = t.smtp.messages.length;
  const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaignId}/test-send`, headers, payload: { emails: [email] } });
  assert.equal(res.statusCode, 200, res.body);
  await t.smtp.waitFor(before + 1);
  return t.smtp.messages[before]!;
}

/** Every href in the HTML, in order. */
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);

describe('personalisation', () => {
  test('subscriber fields, attributes (options resolved), defaults, unknown placeholders; HTML escaped in HTML only', async () => {
    const first = await createAttribute(t.db, 'First name', 'textline');
    const country = await createAttribute(t.db, 'Country', 'select', ['Netherlands', 'Portugal']);
    const hobbies = await createAttribute(t.db, 'Hobbies', 'checkboxgroup', ['Chess', 'Golf', 'Go']);
    await createAttribute(t.db, 'Nickname', 'textline');
    const email = uniqueEmail("o'brien&co");
    const sub = await createSubscriber(t.db, {
      email,
      confirmed: true,
      bounceCount: 3,
      createdAt: new Date('2026-01-02T03:04:05Z'),
      updatedAt: new Date('2026-02-03T04:05:06Z'),
    });
    await setAttribute(t.db, sub.id, first.id, 'Zoë <Z>');
    await setAttribute(t.db, sub.id, country.id, String(country.options.get('Portugal')));
    await setAttribute(t.db, sub.id, hobbies.id, `${hobbies.options.get('Chess')},${hobbies.options.get('Go')}`);
    const alpha = await createList(t.db, { name: 'Alpha & Omega' });
    const beta = await createList(t.db, { name: 'Beta' });
    const hidden = await createList(t.db, { name: 'Internal segment', isPublic: false });
    for (const list of [beta, hidden, alpha]) await subscribe(t.db, list.id, sub.id);

    const campaign = await createCampaign(t.db, {
      clickTrack: false,
      body:
        '<html><body>\n<p>Hi [First Name], [first&nbsp;name]!</p>\n' +
        '<p>[EMAIL] | [USERID] | [UNIQID] | [MESSAGEID] | [CONFIRMED] [BLACKLISTED] [BOUNCECOUNT] [HTMLEMAIL] [DISABLED]</p>\n' +
        '<p>[ENTERED] / [MODIFIED]</p>\n' +
        '<p>[COUNTRY] [HOBBIES] [NICKNAME%%<i>pal</i>] ([NICKNAME]) [SHOE SIZE] [SHOE SIZE%%42]</p>\n' +
        '<p>[LISTS]</p>\n' +
        '<p><a href="[PREFERENCESURL]">prefs</a> [CONFIRMATIONURL] [FORWARDURL] [UNSUBSCRIBE]</p>\n</body></html>',
      textBody: 'Hi [FIRST NAME] | [EMAIL] | [COUNTRY] | [HOBBIES] | [NICKNAME%%pal] | [SHOE SIZE] | [MESSAGEID]\n[LISTS]\n[UNSUBSCRIBE]',
    });
    const mail = await sendTo(campaign.id, email);
    const uid = sub.uniqueId;
    const unsubscribe = /<([^>]+)>/.exec(rawHeader(mail, 'List-Unsubscribe')!)![1]!;
    assert.match(unsubscribe, /^http:\/\/localhost:8080\/api\/v2\/unsubscribe\/[A-Za-z0-9_-]+$/);
    const escapedEmail = email.replace('&', '&amp;').replace("'", '&#39;');
    assert.equal(
      htmlOf(mail.parsed),
      '<html><body>\n<p>Hi Zoë &lt;Z&gt;, Zoë &lt;Z&gt;!</p>\n' +
        `<p>${escapedEmail} | ${uid} | ${uid} | ${campaign.id} | 1 0 3 1 0</p>\n` +
        '<p>2026-01-02 03:04:05 / 2026-02-03 04:05:06</p>\n' +
        '<p>Portugal Chess, Go <i>pal</i> () [SHOE SIZE] 42</p>\n' +
        '<p>Alpha &amp; Omega<br>Beta</p>\n' +
        `<p><a href="${PUBLIC}/preferences/${encodePreferencesToken(t.ctx.secrets.linkToken, uid)}">prefs</a> ` +
        `${PUBLIC}/api/v2/subscribers/confirm?uniqueId=${uid} ${PUBLIC}/forward/${encodeForwardToken(t.ctx.secrets.linkToken, { uniqueId: uid, campaignId: campaign.id })} ` +
        `<a href="${unsubscribe}">Unsubscribe</a></p>\n` +
        `<img src="${PUBLIC}/api/v2/t/open.gif?u=${uid}&amp;m=${campaign.id}" width="1" height="1" alt=""></body></html>`,
    );
    assert.equal(
      mail.parsed.text,
      `Hi Zoë <Z> | ${email} | Portugal | Chess, Go | pal | [SHOE SIZE] | ${campaign.id}\nAlpha & Omega\nBeta\n${unsubscribe}`,
    );
    const token = unsubscribe.split('/').pop()!;
    assert.deepEqual(decodeUnsubscribeToken(t.ctx.secrets.linkToken, token), { uniqueId: uid, campaignId: campaign.id });
  });

  test('no lists: [LISTS] says so; a subscriber without the attribute gets the default or nothing', async () => {
    await createAttribute(t.db, 'Town', 'textline');
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { sendFormat: 'text', body: '[town%%Somewhere]/[TOWN]/[LISTS]' });
    const mail = await sendTo(campaign.id, email);
    assert.equal(mail.parsed.text, 'Somewhere//Sorry, you are not subscribed to any of our newsletters with this email address.');
  });
});

describe('link placeholders', () => {
  test('[UNSUBSCRIBE], [PREFERENCES], [FORWARD] are links in HTML and URLs in text; [USERTRACK] places the pixel', async () => {
    const email = uniqueEmail();
    const sub = await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, {
      clickTrack: false,
      body: '<html><body><p>[USERTRACK]</p><p>[unsubscribe] [Preferences] [FORWARD%%ignored]</p></body></html>',
      textBody: '[UNSUBSCRIBE] [PREFERENCES] [FORWARD] [USERTRACK]|',
    });
    const mail = await sendTo(campaign.id, email);
    const uid = sub.uniqueId;
    const unsubscribe = /<([^>]+)>/.exec(rawHeader(mail, 'List-Unsubscribe')!)![1]!;
    const preferences = `${PUBLIC}/preferences/${encodePreferencesToken(t.ctx.secrets.linkToken, uid)}`;
    const forward = `${PUBLIC}/forward/${encodeForwardToken(t.ctx.secrets.linkToken, { uniqueId: uid, campaignId: campaign.id })}`;
    assert.equal(
      htmlOf(mail.parsed),
      `<html><body><p><img src="${PUBLIC}/api/v2/t/open.gif?u=${uid}&amp;m=${campaign.id}" width="1" height="1" alt=""></p>` +
        `<p><a href="${unsubscribe}">Unsubscribe</a> <a href="${preferences}">Update your preferences</a> ` +
        `<a href="${forward}">Forward this message</a></p></body></html>`,
    );
    assert.equal(mail.parsed.text, `${unsubscribe} ${preferences} ${forward} |`);
  });
});

describe('formats', () => {
  test('send_format html and invite: text and HTML parts; text: text only; html_email false: text only', async () => {
    const email = uniqueEmail();
    const textOnlyEmail = uniqueEmail('plain');
    await createSubscriber(t.db, { email });
    await createSubscriber(t.db, { email: textOnlyEmail, htmlEmail: false });
    for (const sendFormat of ['html', 'invite']) {
      const campaign = await createCampaign(t.db, { sendFormat, body: '<p>Hello [EMAIL]</p>', textBody: 'Hello in text', clickTrack: false });
      const mail = await sendTo(campaign.id, email);
      assert.equal(mail.parsed.text, 'Hello in text');
      assert.match(htmlOf(mail.parsed)!, new RegExp(`^<p>Hello ${email}</p><img src=`));
      assert.match(rawHeader(mail, 'Content-Type')!, /^multipart\/alternative; boundary="[^"]+"$/);

      const plain = await sendTo(campaign.id, textOnlyEmail);
      assert.equal(htmlOf(plain.parsed), null, 'no HTML part for a subscriber who wants text');
      assert.equal(plain.parsed.text, 'Hello in text');
      assert.equal(rawHeader(plain, 'Content-Type'), 'text/plain; charset=utf-8');
      assert.equal(rawHeader(plain, 'Content-Transfer-Encoding'), 'quoted-printable');
    }
    const text = await createCampaign(t.db, { sendFormat: 'text', body: 'Plain body for [EMAIL]\nsecond line' });
    const mail = await sendTo(text.id, email);
    assert.equal(htmlOf(mail.parsed), null);
    assert.equal(mail.parsed.text, `Plain body for ${email}\nsecond line`);
  });

  test('without a text body the text part is derived from the HTML (headings as written, links as text (url)); the footer ends both parts', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, {
      clickTrack: false,
      body: '<html><body><h1>Big news</h1><p>Hello <b>[FIRST NAME%%dear reader of this rather long newsletter line]</b>, see <a href="https://example.com/x">our site</a>.</p><ul><li>one</li><li>two</li></ul></body></html>',
      footer: 'Sent by Example\n[UNSUBSCRIBEURL]',
    });
    const mail = await sendTo(campaign.id, email);
    const unsubscribe = /<([^>]+)>/.exec(rawHeader(mail, 'List-Unsubscribe')!)![1]!;
    assert.equal(
      mail.parsed.text,
      // Wrapped at 78 with the placeholder counted as written, so its value may run past.
      'Big news\n\nHello dear reader of this rather long newsletter line, see our site (https://example.com/x).\n\n * one\n * two\n\n' +
        `Sent by Example\n${unsubscribe}`,
    );
    assert.match(
      htmlOf(mail.parsed)!,
      new RegExp(`</ul>\nSent by Example<br>\n${unsubscribe}\n<img src="[^"]+" width="1" height="1" alt=""></body></html>$`),
    );
  });

  test('the open pixel goes before </body>, or at the end of a body without one; never in the text part', async () => {
    const email = uniqueEmail();
    const sub = await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { body: '<div>No body tag</div>', clickTrack: false });
    const mail = await sendTo(campaign.id, email);
    assert.equal(
      htmlOf(mail.parsed),
      `<div>No body tag</div><img src="${PUBLIC}/api/v2/t/open.gif?u=${sub.uniqueId}&amp;m=${campaign.id}" width="1" height="1" alt="">`,
    );
    assert.equal(mail.parsed.text, 'No body tag');
  });
});

describe('click tracking', () => {
  const body =
    '<p><a href="https://example.com/a?x=1&amp;y=2">A</a> <a class="b" href=\'https://example.com/b\'>B</a> ' +
    '<a href="https://example.com/a?x=1&amp;y=2">A again</a> <a href="mailto:someone@example.com">mail</a> ' +
    '<a href="#top">top</a> <a href="[UNSUBSCRIBEURL]">unsub</a> <a href="https://example.com/p?u=[USERID]">personal</a></p>';
  const textBody = 'Visit https://example.com/c, or https://example.com/a?x=1&y=2.';

  test('each distinct URL stored once in links; hrefs and text URLs carry PUBLIC_URL/lt/<token>', async () => {
    const email = uniqueEmail();
    const sub = await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { body, textBody });
    const mail = await sendTo(campaign.id, email);
    const rows = await t.db.select().from(links).where(eq(links.campaignId, campaign.id));
    assert.deepEqual(rows.map((r) => r.url).sort(), ['https://example.com/a?x=1&y=2', 'https://example.com/b', 'https://example.com/c']);
    const idOf = (url: string) => rows.find((r) => r.url === url)!.id;

    const target = (href: string) => {
      const match = /^http:\/\/localhost:8080\/lt\/([A-Za-z0-9_-]{24})$/.exec(href);
      assert.ok(match, `${href} is a tracked link`);
      return decodeLinkToken(t.ctx.secrets.linkToken, match[1]!);
    };
    const [a, b, a2, mailto, anchor, unsub, personal] = hrefs(htmlOf(mail.parsed)!);
    assert.deepEqual(target(a!), { linkId: idOf('https://example.com/a?x=1&y=2'), subscriberId: sub.id, legacy: false });
    assert.deepEqual(target(b!), { linkId: idOf('https://example.com/b'), subscriberId: sub.id, legacy: false });
    assert.equal(a2, a);
    assert.equal(mailto, 'mailto:someone@example.com');
    assert.equal(anchor, '#top');
    assert.match(unsub!, /^http:\/\/localhost:8080\/api\/v2\/unsubscribe\//);
    assert.equal(personal, `https://example.com/p?u=${sub.uniqueId}`);

    const textUrls = [...mail.parsed.text!.matchAll(/http:\/\/localhost:8080\/lt\/([A-Za-z0-9_-]{24})/g)].map((m) => m[0]);
    assert.equal(textUrls.length, 2);
    assert.deepEqual(target(textUrls[0]!), { linkId: idOf('https://example.com/c'), subscriberId: sub.id, legacy: false });
    assert.equal(textUrls[1], a);
    assert.match(mail.parsed.text!, /^Visit http:\/\/localhost:8080\/lt\/\S{24}, or http:\/\/localhost:8080\/lt\/\S{24}\.$/);

    // Compiling again (a second test) stores nothing new.
    await sendTo(campaign.id, email);
    assert.equal((await t.db.select().from(links).where(eq(links.campaignId, campaign.id))).length, 3);
  });

  test('click_track off: links as written, nothing stored', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { body, textBody, clickTrack: false });
    const mail = await sendTo(campaign.id, email);
    assert.ok(htmlOf(mail.parsed)!.startsWith(body.slice(0, body.indexOf('<a href="[UNSUBSCRIBEURL]">'))), htmlOf(mail.parsed)!);
    assert.equal(mail.parsed.text, textBody);
    assert.equal((await t.db.select().from(links).where(eq(links.campaignId, campaign.id))).length, 0);
  });
});

describe('attachments and templates', () => {
  test('attachments as base64 parts with their bytes, type and (RFC 2231) name, for HTML and text recipients', async () => {
    const email = uniqueEmail();
    const plainEmail = uniqueEmail('plain');
    await createSubscriber(t.db, { email });
    await createSubscriber(t.db, { email: plainEmail, htmlEmail: false });
    const campaign = await createCampaign(t.db, { body: '<p>See attached</p>', clickTrack: false });
    const pdf = randomBytes(70_000);
    const longName = `Preisübersicht 2026 – Gültig ab Januar für alle Kunden in Österreich und der Schweiz.pdf`;
    await attachFile(t, campaign.id, longName, 'application/pdf', pdf);
    await attachFile(t, campaign.id, 'notes.txt', 'text/plain', Buffer.from('line one\nline two\n'));

    for (const address of [email, plainEmail]) {
      const mail = await sendTo(campaign.id, address);
      const parts = mail.parsed.attachments;
      assert.deepEqual(
        parts.map((p) => [p.filename, p.contentType, p.contentDisposition]),
        [
          [longName, 'application/pdf', 'attachment'],
          ['notes.txt', 'text/plain', 'attachment'],
        ],
      );
      assert.ok(parts[0]!.content.equals(pdf));
      assert.equal(parts[1]!.content.toString(), 'line one\nline two\n');
      assert.equal(mail.parsed.text, 'See attached');
      assert.equal(rawHeader(mail, 'Content-Type')!.split(';')[0], 'multipart/mixed');
      for (const line of mail.raw.toString('latin1').split('\r\n')) assert.ok(line.length <= 998);
    }
  });

  test('template: [CONTENT] merged in HTML and text; an embedded image becomes an inline cid part', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const png = randomBytes(300);
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/templates',
      headers,
      payload: {
        title: `Framed ${Date.now()}`,
        content: `<html><body><div class="frame">[CONTENT]</div><img src="data:image/png;base64,${png.toString('base64')}" width="10"><img src="https://cdn.example.com/x.png"></body></html>`,
        text: '-- Framed --\n[CONTENT]\n-- end --',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const campaign = await createCampaign(t.db, {
      templateId: res.json().id,
      body: '<p>Body for [EMAIL]</p>',
      textBody: 'Text for [EMAIL]',
      clickTrack: false,
    });
    const mail = await sendTo(campaign.id, email);
    // mailparser turns cid: references into data: URIs unless told not to.
    const html = htmlOf(await simpleParser(mail.raw, { keepCidLinks: true }))!;
    const cid = /<img src="cid:([^"]+)" width="10">/.exec(html)?.[1];
    assert.ok(cid, html);
    assert.match(
      html,
      new RegExp(
        `^<html><body><div class="frame"><p>Body for ${email}</p></div><img src="cid:[^"]+" width="10"><img src="https://cdn.example.com/x.png"><img src="${PUBLIC}/api/v2/t/open.gif`,
      ),
    );
    assert.equal(mail.parsed.text, `-- Framed --\nText for ${email}\n-- end --`);
    const [image] = mail.parsed.attachments;
    assert.equal(mail.parsed.attachments.length, 1);
    assert.equal(image!.contentType, 'image/png');
    assert.equal(image!.contentDisposition, 'inline');
    assert.equal(image!.cid, cid);
    assert.equal(image!.related, true);
    assert.ok(image!.content.equals(png));
  });

  test('a template without a text version: the text part is the whole merged HTML as text', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/templates',
      headers,
      payload: { title: `Plain frame ${Date.now()}`, content: '<html><body><p>Header</p>[CONTENT]<p>Trailer</p></body></html>' },
    });
    const campaign = await createCampaign(t.db, { templateId: res.json().id, body: '<p>Middle</p>', clickTrack: false });
    const mail = await sendTo(campaign.id, email);
    assert.equal(mail.parsed.text, 'Header\n\nMiddle\n\nTrailer');
  });
});

describe('headers', () => {
  test("List-Id names the campaign's list; without one the campaign", async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email });
    const list = await createList(t.db, { name: 'Weekly Digest' });
    const campaign = await createCampaign(t.db, { body: '<p>x</p>' });
    await t.db.insert(listCampaigns).values({ campaignId: campaign.id, listId: list.id });
    assert.equal(rawHeader(await sendTo(campaign.id, email), 'List-Id'), `Weekly Digest <${list.id}.localhost>`);
    const lonely = await createCampaign(t.db, { body: '<p>x</p>' });
    assert.equal(rawHeader(await sendTo(lonely.id, email), 'List-Id'), `<campaign-${lonely.id}.localhost>`);
  });
});
