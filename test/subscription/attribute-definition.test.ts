import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { attributeOptions, subscriberAttributeValues } from '../../src/db/schema/index.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const DENIED = { message: 'You are not allowed to manage attribute definitions.' };
const NOT_FOUND = { message: 'Attribute definition not found.' };

let seq = 0;
const uniqueName = (base: string) => `${base} ${++seq}-${Math.random().toString(36).slice(2, 6)}`;

async function create(body: Record<string, unknown>) {
  const res = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

describe('POST /api/v2/attributes', () => {
  test('creates a text definition with no options', async () => {
    const name = uniqueName('Country');
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/attributes',
      headers,
      payload: { name, type: 'TextLine', order: 12, default_value: 'United States', required: true },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      name,
      type: 'textline',
      list_order: 12,
      default_value: 'United States',
      required: true,
      subscriber_editable: false,
      options: [],
      placeholder: `[${name.toUpperCase()}]`,
    });
  });

  test('creates a select with options: duplicates dropped, missing orders numbered around the given ones', async () => {
    const name = uniqueName('Colour');
    const body = await create({
      name,
      type: 'select',
      options: [{ name: 'Red' }, { name: 'Green', list_order: 1 }, { name: 'red' }, { name: 'Blue' }],
    });
    const ids = body.options.map((o: { id: number }) => o.id);
    assert.deepEqual(body, {
      id: body.id,
      name,
      type: 'select',
      list_order: null,
      default_value: null,
      required: false,
      subscriber_editable: false,
      options: [
        { id: ids[0], name: 'Green', list_order: 1 },
        { id: ids[1], name: 'Red', list_order: 2 },
        { id: ids[2], name: 'Blue', list_order: 3 },
      ],
      placeholder: `[${name.toUpperCase()}]`,
    });
  });

  test('placeholder (Mailroom addition): how a campaign writes the value, following a rename; null when no placeholder can name it', async () => {
    const body = await create({ name: `  first\u00a0 name ${++seq}`, type: 'textline' });
    assert.equal(body.placeholder, `[FIRST NAME ${seq}]`);
    const renamed = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${body.id}`,
      headers,
      payload: { name: `Straße ${seq}`, type: 'textline' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().placeholder, `[STRASSE ${seq}]`);
    const read = await t.inject({ method: 'GET', url: `/api/v2/attributes/${body.id}`, headers });
    assert.equal(read.json().placeholder, `[STRASSE ${seq}]`);
    for (const name of [`Web site: ${++seq}`, `a/b ${seq}`, `50% ${seq}`, `x${'y'.repeat(80)} ${seq}`]) {
      assert.equal((await create({ name, type: 'textline' })).placeholder, null, name);
    }
  });

  test('subscriber_editable (Mailroom addition): set on create, changed on update, false when not given', async () => {
    const body = await create({ name: uniqueName('Nick'), type: 'textline', subscriber_editable: true });
    assert.equal(body.subscriber_editable, true);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${body.id}`,
      headers,
      payload: { name: body.name, type: 'textline', subscriber_editable: false },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().subscriber_editable, false);
    const bad = await t.inject({
      method: 'POST',
      url: '/api/v2/attributes',
      headers,
      payload: { name: uniqueName('X'), type: 'textline', subscriber_editable: 'yes' },
    });
    assert.equal(bad.statusCode, 422);
  });

  test('all nine types are accepted; text and number are refused with the valid list', async () => {
    for (const type of ['textline', 'hidden', 'creditcardno', 'select', 'date', 'checkbox', 'textarea', 'radio', 'checkboxgroup']) {
      const body = await create({ name: uniqueName(type), type });
      assert.equal(body.type, type);
    }
    for (const type of ['text', 'number', 'bogus']) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: { name: uniqueName('x'), type } });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), {
        message: 'Validation failed',
        errors: {
          type: [
            `Invalid attribute type: "${type}". Valid types are: textline, hidden, creditcardno, select, date, checkbox, textarea, radio, checkboxgroup`,
          ],
        },
      });
    }
  });

  test('a name taken case-insensitively is 409', async () => {
    const name = uniqueName('Dup');
    await create({ name, type: 'textline' });
    const res = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: { name: name.toUpperCase(), type: 'textline' } });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { message: 'Attribute definition already exists.' });
  });

  test('bad input is 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'textline' }, 'name'],
      [{ name: '   ', type: 'textline' }, 'name'],
      [{ name: 'x' }, 'type'],
      [{ name: 'x', type: 'select', options: [{ list_order: 1 }] }, 'options[0].name'],
      [{ name: 'x', type: 'textline', order: 'first' }, 'order'],
      [{ name: 'x', type: 'textline', required: 'yes' }, 'required'],
    ];
    for (const [payload, field] of cases) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.ok(Object.keys(res.json().errors).includes(field), `${field} in ${res.body}`);
    }
  });

  test('without a session 403; without the settings privilege 403', async () => {
    const none = await t.inject({ method: 'POST', url: '/api/v2/attributes', payload: { name: 'x', type: 'textline' } });
    assert.equal(none.statusCode, 403);
    assert.deepEqual(none.json(), NO_SESSION);
    const { headers: subscribersOnly } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const res = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers: subscribersOnly, payload: { name: 'x', type: 'textline' } });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), DENIED);
    const { headers: settings } = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const ok = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers: settings, payload: { name: uniqueName('s'), type: 'textline' } });
    assert.equal(ok.statusCode, 201);
  });
});

describe('GET /api/v2/attributes', () => {
  test('pages by id with options; one by id; unknown 404; non-digit id is an unknown route', async () => {
    const first = await create({ name: uniqueName('Page'), type: 'radio', options: [{ name: 'A' }, { name: 'B' }] });
    const second = await create({ name: uniqueName('Page'), type: 'textarea' });
    const page = await t.inject({ method: 'GET', url: `/api/v2/attributes?after_id=${first.id - 1}&limit=2`, headers });
    assert.equal(page.statusCode, 200);
    const body = page.json();
    assert.deepEqual(body.items, [first, second]);
    assert.equal(body.pagination.limit, 2);
    assert.equal(body.pagination.has_more, true);
    assert.equal(body.pagination.next_cursor, second.id);
    assert.ok(body.pagination.total >= 2);

    const one = await t.inject({ method: 'GET', url: `/api/v2/attributes/${first.id}`, headers });
    assert.deepEqual(one.json(), first);
    const missing = await t.inject({ method: 'GET', url: '/api/v2/attributes/999999', headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND);
    const word = await t.inject({ method: 'GET', url: '/api/v2/attributes/abc', headers });
    assert.equal(word.statusCode, 404);
    const none = await t.inject({ method: 'GET', url: '/api/v2/attributes' });
    assert.equal(none.statusCode, 403);
  });
});

describe('PUT /api/v2/attributes/{id}', () => {
  test('updates fields; other fields unchanged when absent', async () => {
    const def = await create({ name: uniqueName('Upd'), type: 'textline', order: 3, default_value: 'x', required: true });
    const name = uniqueName('Renamed');
    const res = await t.inject({ method: 'PUT', url: `/api/v2/attributes/${def.id}`, headers, payload: { name, type: 'textarea' } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ...def, name, type: 'textarea', placeholder: `[${name.toUpperCase()}]` });
  });

  test('type changes across families are 422; within a family allowed', async () => {
    const text = await create({ name: uniqueName('Fam'), type: 'textline' });
    const res = await t.inject({ method: 'PUT', url: `/api/v2/attributes/${text.id}`, headers, payload: { name: text.name, type: 'select' } });
    assert.equal(res.statusCode, 422);
    assert.match(res.json().errors.type[0], /cannot change from textline to select/);
    const select = await create({ name: uniqueName('Fam'), type: 'select', options: [{ name: 'One' }] });
    const ok = await t.inject({ method: 'PUT', url: `/api/v2/attributes/${select.id}`, headers, payload: { name: select.name, type: 'radio' } });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { ...select, type: 'radio' });
  });

  test('option sync: update by id, match by name, insert, delete unused, keep used, refuse a rename clash', async () => {
    const def = await create({
      name: uniqueName('Sync'),
      type: 'checkboxgroup',
      options: [{ name: 'Alpha' }, { name: 'Beta' }, { name: 'Gamma' }, { name: 'Delta' }],
    });
    const [alpha, beta, gamma, delta] = def.options;
    const subscriber = await createSubscriber(t.db);
    // Gamma is in use by a subscriber's value: it must survive being left out.
    await t.db.insert(subscriberAttributeValues).values({ subscriberId: subscriber.id, definitionId: def.id, value: `${alpha.id},${gamma.id}` });

    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${def.id}`,
      headers,
      payload: {
        name: def.name,
        type: 'checkboxgroup',
        options: [{ id: alpha.id, name: 'Alpha One', list_order: 10 }, { name: 'beta', list_order: 20 }, { name: 'Epsilon' }],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const epsilon = body.options.find((o: { name: string }) => o.name === 'Epsilon');
    assert.ok(epsilon, res.body);
    assert.deepEqual(
      body.options,
      [
        { id: gamma.id, name: 'Gamma', list_order: 3 },
        { id: epsilon.id, name: 'Epsilon', list_order: epsilon.list_order },
        { id: alpha.id, name: 'Alpha One', list_order: 10 },
        { id: beta.id, name: 'beta', list_order: 20 },
      ].sort((a, b) => a.list_order - b.list_order || a.id - b.id),
    );
    assert.ok(![3, 10, 20].includes(epsilon.list_order));
    const remaining = (await t.db.select().from(attributeOptions)).filter((o) => o.definitionId === def.id).map((o) => o.id);
    assert.ok(!remaining.includes(delta.id), 'unused option deleted');

    const clash = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${def.id}`,
      headers,
      payload: {
        name: def.name,
        type: 'checkboxgroup',
        options: [
          { id: alpha.id, name: 'Gamma' },
          { id: gamma.id, name: 'Gamma' },
        ],
      },
    });
    assert.equal(clash.statusCode, 422);
    assert.deepEqual(clash.json(), { message: 'Validation failed', errors: { options: ['Option name Gamma already exists.'] } });
    const unchanged = await t.inject({ method: 'GET', url: `/api/v2/attributes/${def.id}`, headers });
    assert.deepEqual(unchanged.json(), body, 'a refused sync writes nothing');
  });

  test("409 for another definition's name; 404 before the body is read; 403 without session", async () => {
    const a = await create({ name: uniqueName('A'), type: 'textline' });
    const b = await create({ name: uniqueName('B'), type: 'textline' });
    const clash = await t.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${b.id}`,
      headers,
      payload: { name: a.name.toLowerCase(), type: 'textline' },
    });
    assert.equal(clash.statusCode, 409);
    assert.deepEqual(clash.json(), { message: 'Another attribute with this name already exists.' });
    const self = await t.inject({ method: 'PUT', url: `/api/v2/attributes/${b.id}`, headers, payload: { name: b.name, type: 'textline' } });
    assert.equal(self.statusCode, 200);
    const missing = await t.inject({ method: 'PUT', url: '/api/v2/attributes/999999', headers, payload: { bogus: true } });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND);
    const none = await t.inject({ method: 'PUT', url: `/api/v2/attributes/${a.id}`, payload: { name: 'x', type: 'textline' } });
    assert.equal(none.statusCode, 403);
  });
});

describe('DELETE /api/v2/attributes/{id}', () => {
  test('deletes the definition with its values; then 404', async () => {
    const def = await create({ name: uniqueName('Del'), type: 'select', options: [{ name: 'Yes' }] });
    const subscriber = await createSubscriber(t.db);
    await t.db.insert(subscriberAttributeValues).values({ subscriberId: subscriber.id, definitionId: def.id, value: String(def.options[0].id) });
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/attributes/${def.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const values = (await t.db.select().from(subscriberAttributeValues)).filter((v) => v.definitionId === def.id);
    assert.deepEqual(values, []);
    const again = await t.inject({ method: 'DELETE', url: `/api/v2/attributes/${def.id}`, headers });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), NOT_FOUND);
  });
});
