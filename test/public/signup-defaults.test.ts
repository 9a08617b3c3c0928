import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCampaign, createList, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { createPage } from './fixtures.js';

/*
 * Attribute defaults are stored as given (phpList) and read by one function (subscription/attribute-default.ts):
 * an option by id or name, checkbox words, a checkboxgroup's comma-separated names. These tests watch it through
 * what the subscriber sees (the sign-up page, the embed snippet) and what a value written without one becomes.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

let seq = 0;
const unique = (base: string) => `${base} ${++seq}-${Math.random().toString(36).slice(2, 6)}`;

interface Definition {
  id: number;
  name: string;
  type: string;
  default_value: string | null;
  options: { id: number; name: string; list_order: number }[];
}

async function define(body: Record<string, unknown>): Promise<Definition> {
  const res = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const options = (...names: string[]) => names.map((name) => ({ name }));

/** A live page with one public list offering these attributes; its form's HTML. */
async function signUpPage(definitions: Definition[]) {
  const list = await createList(t.db, { name: unique('List'), isPublic: true });
  const page = await createPage(t.db, unique('Join'), { lists: String(list.id), attributes: definitions.map((d) => d.id).join(',') });
  const res = await t.inject({ method: 'GET', url: `/subscribe/${page.id}` });
  assert.equal(res.statusCode, 200, res.body);
  return { page, html: res.body };
}

/** The option values a select of the form has selected. */
const selected = (html: string, d: Definition) => {
  const select = new RegExp(`<select id="attr_${d.id}"[^>]*>(.*?)</select>`).exec(html)?.[1] ?? '';
  return [...select.matchAll(/<option value="([^"]*)" selected>/g)].map((m) => m[1]);
};
/** The values of the form's ticked radios and checkboxes named after the attribute. */
const ticked = (html: string, d: Definition) =>
  [...html.matchAll(new RegExp(`<input type="(?:radio|checkbox)" id="attr_${d.id}[^"]*" name="attr_${d.id}" value="([^"]*)" checked`, 'g'))].map(
    (m) => m[1],
  );

describe('attribute defaults on the sign-up form', () => {
  test('an option default given by name or by id is pre-selected; checkbox words; a checkboxgroup of two names', async () => {
    const byName = await define({ name: unique('Plan'), type: 'select', options: options('Basic', 'Pro'), default_value: ' pro ' });
    const byId = await define({ name: unique('Size'), type: 'select', options: options('Small', 'Large') });
    const large = byId.options[1]!;
    const put = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${byId.id}`,
      headers,
      payload: { name: byId.name, type: 'select', default_value: String(large.id) },
    });
    assert.equal(put.statusCode, 200, put.body);
    const radio = await define({ name: unique('Level'), type: 'radio', options: options('Beginner', 'Expert'), default_value: 'EXPERT' });
    const yes = await define({ name: unique('Agree'), type: 'checkbox', default_value: 'Yes' });
    const no = await define({ name: unique('Offers'), type: 'checkbox', default_value: 'United States' });
    const topics = await define({
      name: unique('Topics'),
      type: 'checkboxgroup',
      options: options('Books', 'Music', 'Films'),
      default_value: 'films, Books',
    });
    // Stored as sent: names, case and spaces kept.
    assert.deepEqual(
      [byName, radio, yes, topics].map((d) => d.default_value),
      [' pro ', 'EXPERT', 'Yes', 'films, Books'],
    );

    const { page, html } = await signUpPage([byName, byId, radio, yes, no, topics]);
    assert.deepEqual(selected(html, byName), [String(byName.options[1]!.id)]);
    assert.deepEqual(selected(html, byId), [String(large.id)]);
    assert.deepEqual(ticked(html, radio), [String(radio.options[1]!.id)]);
    assert.deepEqual(ticked(html, yes), ['1']);
    assert.deepEqual(ticked(html, no), []);
    const [books, , films] = topics.options;
    assert.deepEqual(ticked(html, topics), [String(books!.id), String(films!.id)]);

    // The embed snippet is the same form: the same defaults pre-selected.
    const embed = await t.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${page.id}/embed`, headers });
    assert.equal(embed.statusCode, 200, embed.body);
    const snippet = (embed.json() as { html: string }).html;
    assert.deepEqual(selected(snippet, byName), [String(byName.options[1]!.id)]);
    assert.deepEqual(ticked(snippet, yes), ['1']);
    assert.deepEqual(ticked(snippet, topics), [String(books!.id), String(films!.id)]);
  });

  test('a default naming no option pre-selects nothing; one naming a removed option keeps the others', async () => {
    const gone = await define({ name: unique('Colour'), type: 'select', options: options('Red'), default_value: 'Blue' });
    const partly = await define({ name: unique('Days'), type: 'checkboxgroup', options: options('Mon', 'Tue'), default_value: 'Sun,Tue' });
    const date = await define({ name: unique('Born'), type: 'date', default_value: 'tomorrow' });
    const { html } = await signUpPage([gone, partly, date]);
    assert.deepEqual(selected(html, gone), []);
    assert.deepEqual(ticked(html, partly), [String(partly.options[1]!.id)]);
    assert.ok(html.includes(`<input type="date" id="attr_${date.id}" name="attr_${date.id}" value="">`));
  });
});

describe('attribute defaults stored as given (phpList reference)', () => {
  test('a checkbox defaulting to "United States" is 201 and read back as sent; PUT "Canada" is 200', async () => {
    const name = unique('Country');
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/attributes',
      headers,
      payload: { name, type: 'checkbox', order: 12, default_value: 'United States', required: true },
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json() as Definition;
    const expected = {
      id: created.id,
      name,
      type: 'checkbox',
      list_order: 12,
      default_value: 'United States',
      required: true,
      subscriber_editable: false,
      options: [],
      placeholder: `[${name.toUpperCase()}]`,
    };
    assert.deepEqual(created, expected);
    const read = await t.inject({ method: 'GET', url: `/api/v2/attributes/${created.id}`, headers });
    assert.deepEqual(read.json(), expected);

    const put = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${created.id}`,
      headers,
      payload: { name, type: 'checkbox', order: 10, default_value: 'Canada', required: false },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json(), { ...expected, list_order: 10, default_value: 'Canada', required: false });
  });
});

describe('a value written without one becomes the default as read', () => {
  const write = (subscriberId: number, d: Definition) =>
    t.inject({ method: 'POST', url: `/api/v2/subscribers/${subscriberId}/attributes/${d.id}`, headers, payload: {} });

  test('an option named by the default is stored by id, checkbox words as 1/0; a default naming no option is 422 at value', async () => {
    const subscriber = await createSubscriber(t.db);
    const plan = await define({ name: unique('Plan'), type: 'radio', options: options('Basic', 'Pro'), default_value: 'pro' });
    const planValue = await write(subscriber.id, plan);
    assert.equal(planValue.statusCode, 201, planValue.body);
    assert.equal(planValue.json().value, String(plan.options[1]!.id));

    const agree = await define({ name: unique('Agree'), type: 'checkbox', default_value: 'United States' });
    const agreeValue = await write(subscriber.id, agree);
    assert.equal(agreeValue.statusCode, 201, agreeValue.body);
    assert.equal(agreeValue.json().value, '0');

    const colour = await define({ name: unique('Colour'), type: 'select', options: options('Red'), default_value: 'Blue' });
    const refused = await write(subscriber.id, colour);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.deepEqual(refused.json(), {
      message: 'Validation failed',
      errors: { value: ['A value is required: this attribute\'s default "Blue" names none of its options.'] },
    });
  });
});

describe("the campaign preview's sample subscriber", () => {
  test("shows a default given by option id as the option's name, as a subscriber's value would show", async () => {
    const size = await define({ name: unique('Size'), type: 'select', options: options('Small', 'Large') });
    const large = size.options[1]!;
    const put = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${size.id}`,
      headers,
      payload: { name: size.name, type: 'select', default_value: String(large.id) },
    });
    assert.equal(put.statusCode, 200, put.body);
    const placeholder = (put.json() as { placeholder: string }).placeholder;
    const campaign = await createCampaign(t.db, { subject: 'Sizes', body: `<p>Size: ${placeholder}</p>`, fromField: 'News <news@example.com>' });
    const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/preview`, headers, payload: { sample: true } });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok((res.json() as { html: string }).html.includes('<p>Size: Large</p>'), res.body);
  });
});
