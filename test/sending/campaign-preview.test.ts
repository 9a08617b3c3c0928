import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { attributeDefinitions, campaignCounters, links, subscriberAttributeValues, templates } from '../../src/db/schema/index.js';
import { createCampaign, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { uniqueEmail } from './compose-fixtures.js';

/*
 * The console's editor aids (issue 12): POST …/preview renders through the sender's composer, GET …/checks warns
 * with lines, GET /campaign-placeholders lists what the composer fills.
 */

let t: TestApp;
let headers: Record<string, string>;
let attributeName: string;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
  attributeName = `Nick ${Date.now()}`;
  await t.db.insert(attributeDefinitions).values({ name: attributeName, type: 'textline' });
});
after(() => t.close());

const CAMPAIGN_NOT_FOUND = { message: 'Campaign not found.' };
const SUBSCRIBER_NOT_FOUND = { message: 'Subscriber not found.' };

const preview = (id: number | string, payload: unknown, h = headers) =>
  t.inject({ method: 'POST', url: `/api/v2/campaigns/${id}/preview`, headers: h, payload: payload as object });
const checks = (id: number | string, h = headers) => t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}/checks`, headers: h });

describe('POST /api/v2/campaigns/{messageId}/preview', () => {
  test('renders for a subscriber: placeholders filled, template applied, links as written; nothing stored', async () => {
    const email = uniqueEmail('preview');
    const sub = await createSubscriber(t.db, { email });
    const [def] = await t.db.select().from(attributeDefinitions).where(eq(attributeDefinitions.name, attributeName));
    await t.db.insert(subscriberAttributeValues).values({ subscriberId: sub.id, definitionId: def!.id, value: 'Robin' });
    const [template] = await t.db
      .insert(templates)
      .values({ title: `Frame ${Date.now()}`, content: '<html><body><div class="frame">[CONTENT]</div></body></html>' })
      .returning();
    const campaign = await createCampaign(t.db, {
      subject: 'Hello [EMAIL]',
      body: `<p>Hi [${attributeName.toUpperCase()}%%friend], see <a href="https://example.com/news?a=1&amp;b=2">news</a>[USERTRACK]</p>`,
      textBody: 'Hi [EMAIL], see https://example.com/news',
      fromField: 'News Desk <news@example.com>',
      replyTo: 'replies@example.com',
      templateId: template!.id,
    });
    const res = await preview(campaign.id, { email: email.toUpperCase() });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      subscriber: { id: sub.id, email },
      subject: `Hello ${email}`,
      from: '"News Desk" <news@example.com>',
      reply_to: 'replies@example.com',
      format: 'html',
      html: '<html><body><div class="frame"><p>Hi Robin, see <a href="https://example.com/news?a=1&amp;b=2">news</a></p></div></body></html>',
      text: `Hi ${email}, see https://example.com/news`,
    });
    // By id too, the same answer.
    const byId = await preview(campaign.id, { subscriber_id: sub.id });
    assert.deepEqual(byId.json(), res.json());
    // No tracked link stored, no counters.
    assert.equal((await t.db.select().from(links).where(eq(links.campaignId, campaign.id))).length, 0);
    assert.equal((await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaign.id))).length, 0);
    assert.equal(t.smtp.messages.filter((m) => m.envelope.to.includes(email)).length, 0, 'nothing is sent');
  });

  test('a text-only subscriber gets the text part; the unsubscribe link is the real one', async () => {
    const email = uniqueEmail('textonly');
    await createSubscriber(t.db, { email, htmlEmail: false });
    const campaign = await createCampaign(t.db, { body: '<p>Hi</p>', footer: 'Leave: [UNSUBSCRIBEURL]', fromField: 'news@example.com' });
    const res = await preview(campaign.id, { email });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.format, 'text');
    assert.equal(body.html, null);
    assert.match(body.text, /^Hi\n\nLeave: http:\/\/localhost(:\d+)?\/api\/v2\/unsubscribe\/[A-Za-z0-9_-]{20,}$/);
  });

  test('bad inputs: campaign missing 404, subscriber unknown 404, neither or both 422, bad types 422, no session 403', async () => {
    const campaign = await createCampaign(t.db, { body: '<p>x</p>', fromField: 'news@example.com' });
    const sub = await createSubscriber(t.db, { email: uniqueEmail('bad') });
    const missing = await preview(999999, { subscriber_id: sub.id });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), CAMPAIGN_NOT_FOUND);
    const unknown = await preview(campaign.id, { email: uniqueEmail('nobody') });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), SUBSCRIBER_NOT_FOUND);
    const unknownId = await preview(campaign.id, { subscriber_id: 2_000_000_000 });
    assert.deepEqual(unknownId.json(), SUBSCRIBER_NOT_FOUND);
    const neither = await preview(campaign.id, {});
    assert.equal(neither.statusCode, 422);
    assert.deepEqual(neither.json(), {
      message: 'Validation failed',
      // A third way since issue 23: sample values.
      errors: Object.fromEntries(['subscriber_id', 'email', 'sample'].map((f) => [f, ['Give one of subscriber_id, email or sample: true.']])),
    });
    const both = await preview(campaign.id, { subscriber_id: sub.id, email: sub.email });
    assert.equal(both.statusCode, 422);
    const notEmail = await preview(campaign.id, { email: 'not-an-address' });
    assert.equal(notEmail.statusCode, 422);
    assert.deepEqual(notEmail.json().errors.email, ['This value is not a valid email address.']);
    const anonymous = await preview(campaign.id, { subscriber_id: sub.id }, {});
    assert.equal(anonymous.statusCode, 403);
  });
});

describe('GET /api/v2/campaigns/{messageId}/checks', () => {
  test('each warning with its part and line', async () => {
    const campaign = await createCampaign(t.db, {
      subject: 'News for [FRIST NAME]',
      body: [
        '<p>Hello [EMAIL]</p>',
        '<a href="/relative">here</a>',
        '<a href="https://example.com/ok">ok</a> <a href="mailto:a@example.com">m</a>',
        '<img src="images/logo.png" alt="">',
        '<img src="https://example.com/x.png" alt=""> [OOPS] [NAME%%you]',
        // Outlook's conditional comments, as mail layouts (the visual format's) write them, are not placeholders.
        '<!--[if mso]><table role="presentation"><tr><td><![endif]--><!--[if mso]></td></tr></table><![endif]-->',
      ].join('\n'),
      fromField: 'news@example.com',
    });
    const res = await checks(campaign.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      warnings: [
        {
          code: 'no_unsubscribe_link',
          message: 'There is no unsubscribe link: add [UNSUBSCRIBE] or [UNSUBSCRIBEURL] to the body or the footer.',
          part: null,
          line: null,
        },
        {
          code: 'unknown_placeholder',
          message: '[FRIST NAME] is not a placeholder the sender knows (nor an attribute): it would go out as written.',
          part: 'subject',
          line: 1,
        },
        {
          code: 'link_not_full_url',
          message: 'The link "/relative" is not a full URL (https://…): it will not work in a mail.',
          part: 'body',
          line: 2,
        },
        {
          code: 'image_not_full_url',
          message: 'The image "images/logo.png" is not a full URL (https://…): it will not show in a mail.',
          part: 'body',
          line: 4,
        },
        {
          code: 'unknown_placeholder',
          message: '[OOPS] is not a placeholder the sender knows (nor an attribute): it would go out as written.',
          part: 'body',
          line: 5,
        },
      ],
    });
  });

  test('a clean campaign has none; an empty text part is one; attributes are known', async () => {
    const clean = await createCampaign(t.db, {
      subject: `Hi [${attributeName}]`,
      body: '<p>Hello</p>',
      footer: '[UNSUBSCRIBE]',
      fromField: 'news@example.com',
    });
    assert.deepEqual((await checks(clean.id)).json(), { warnings: [] });
    const empty = await createCampaign(t.db, { body: '<img src="https://example.com/only.png" alt="">', fromField: 'news@example.com' });
    assert.deepEqual((await checks(empty.id)).json(), {
      warnings: [
        {
          code: 'no_unsubscribe_link',
          message: 'There is no unsubscribe link: add [UNSUBSCRIBE] or [UNSUBSCRIBEURL] to the body or the footer.',
          part: null,
          line: null,
        },
        {
          code: 'empty_text_part',
          message: 'The plain-text part is empty: people whose mail shows text only would get a blank message.',
          part: 'text_message',
          line: null,
        },
      ],
    });
  });

  test('campaign missing 404 (after authentication); no session 403', async () => {
    const missing = await checks(999999);
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), CAMPAIGN_NOT_FOUND);
    const campaign = await createCampaign(t.db, { body: 'x' });
    assert.equal((await checks(campaign.id, {})).statusCode, 403);
  });
});

describe('GET /api/v2/campaign-placeholders', () => {
  test('the fixed placeholders and the attributes', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/campaign-placeholders', headers });
    assert.equal(res.statusCode, 200);
    const items = res.json().items as { placeholder: string; kind: string }[];
    assert.deepEqual(items[0], { placeholder: '[EMAIL]', description: "The subscriber's e-mail address", kind: 'subscriber' });
    assert.ok(items.some((i) => i.placeholder === `[${attributeName.toUpperCase()}]` && i.kind === 'attribute'));
    assert.ok(items.some((i) => i.placeholder === '[UNSUBSCRIBEURL]' && i.kind === 'link'));
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/campaign-placeholders' })).statusCode, 403);
  });
});
