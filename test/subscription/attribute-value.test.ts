import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NOT_FOUND_VALUE = { message: 'Subscriber attribute not found.' };
const NOT_FOUND_SUBSCRIBER = { message: 'Subscriber not found.' };
const NOT_FOUND_DEFINITION = { message: 'Attribute definition not found.' };

let seq = 0;
async function definition(type: string, extra: Record<string, unknown> = {}) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/attributes',
    headers,
    payload: { name: `${type} ${++seq}-${Math.random().toString(36).slice(2, 6)}`, type, ...extra },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** The subscriber as every non-single view shows it (history empty). */
async function subscriberView(id: number) {
  const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${id}`, headers });
  return { ...res.json(), history: [] };
}

const url = (subscriberId: number | string, definitionId?: number | string) =>
  `/api/v2/subscribers/${subscriberId}/attributes${definitionId === undefined ? '' : `/${definitionId}`}`;

describe('POST and PUT /api/v2/subscribers/{id}/attributes/{definitionId}', () => {
  test('creates then replaces a text value; 201 both times, whole body', async () => {
    const def = await definition('textline');
    const subscriber = await createSubscriber(t.db);
    const created = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: 'Test Country' } });
    assert.equal(created.statusCode, 201);
    assert.deepEqual(created.json(), { subscriber: await subscriberView(subscriber.id), definition: def, value: 'Test Country' });
    const replaced = await t.inject({ method: 'PUT', url: url(subscriber.id, def.id), headers, payload: { value: 'Canada' } });
    assert.equal(replaced.statusCode, 201);
    assert.equal(replaced.json().value, 'Canada');
    const read = await t.inject({ method: 'GET', url: url(subscriber.id, def.id), headers });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), replaced.json());
  });

  test('null or absent value takes the default; without a default 422', async () => {
    const withDefault = await definition('textline', { default_value: 'Fallback' });
    const without = await definition('textline');
    const subscriber = await createSubscriber(t.db);
    const res = await t.inject({ method: 'POST', url: url(subscriber.id, withDefault.id), headers, payload: {} });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().value, 'Fallback');
    const bad = await t.inject({ method: 'POST', url: url(subscriber.id, without.id), headers, payload: { value: null } });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json(), {
      message: 'Validation failed',
      errors: { value: ['A value is required: this attribute has no default value.'] },
    });
  });

  test('select and radio take an option id or name and store the id; anything else is 422 listing the options', async () => {
    for (const type of ['select', 'radio']) {
      const def = await definition(type, { options: [{ name: 'Red' }, { name: 'Green' }] });
      const [red, green] = def.options;
      const subscriber = await createSubscriber(t.db);
      const byName = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: 'green' } });
      assert.equal(byName.statusCode, 201);
      assert.equal(byName.json().value, String(green.id));
      const byId = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: String(red.id) } });
      assert.equal(byId.json().value, String(red.id));
      const bad = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: 'Blue' } });
      assert.equal(bad.statusCode, 422);
      assert.deepEqual(bad.json(), { message: 'Validation failed', errors: { value: ['"Blue" is not one of the options (Red, Green).'] } });
    }
  });

  test('checkboxgroup takes a list (array or comma-separated) of options', async () => {
    const def = await definition('checkboxgroup', { options: [{ name: 'News' }, { name: 'Offers' }, { name: 'Events' }] });
    const [news, , events] = def.options;
    const subscriber = await createSubscriber(t.db);
    const array = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: ['News', events.id] } });
    assert.equal(array.statusCode, 201);
    assert.equal(array.json().value, `${news.id},${events.id}`);
    const text = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: 'events, news' } });
    assert.equal(text.json().value, `${events.id},${news.id}`);
    const bad = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: 'News,Sports' } });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.json().errors.value[0], /"Sports" is not one of the options/);
  });

  test('checkbox takes a boolean; date a real date; textline a single line', async () => {
    const checkbox = await definition('checkbox');
    const date = await definition('date');
    const line = await definition('textline');
    const subscriber = await createSubscriber(t.db);
    const yes = await t.inject({ method: 'POST', url: url(subscriber.id, checkbox.id), headers, payload: { value: true } });
    assert.equal(yes.json().value, '1');
    const off = await t.inject({ method: 'POST', url: url(subscriber.id, checkbox.id), headers, payload: { value: 'off' } });
    assert.equal(off.json().value, '0');
    const notBool = await t.inject({ method: 'POST', url: url(subscriber.id, checkbox.id), headers, payload: { value: 'Test Country' } });
    assert.equal(notBool.statusCode, 422);
    assert.deepEqual(notBool.json().errors, { value: ['A checkbox value must be true or false, not "Test Country".'] });

    const day = await t.inject({ method: 'POST', url: url(subscriber.id, date.id), headers, payload: { value: '2024-02-29' } });
    assert.equal(day.json().value, '2024-02-29');
    const stamp = await t.inject({ method: 'POST', url: url(subscriber.id, date.id), headers, payload: { value: '2024-03-01T10:00:00+02:00' } });
    assert.equal(stamp.json().value, '2024-03-01');
    for (const value of ['2023-02-29', 'tomorrow', '31/12/2024']) {
      const bad = await t.inject({ method: 'POST', url: url(subscriber.id, date.id), headers, payload: { value } });
      assert.equal(bad.statusCode, 422, value);
      assert.deepEqual(bad.json().errors, { value: [`"${value}" is not a date (expected YYYY-MM-DD).`] });
    }
    const twoLines = await t.inject({ method: 'POST', url: url(subscriber.id, line.id), headers, payload: { value: 'a\nb' } });
    assert.equal(twoLines.statusCode, 422);
    const object = await t.inject({ method: 'POST', url: url(subscriber.id, line.id), headers, payload: { value: { a: 1 } } });
    assert.equal(object.statusCode, 422);
  });

  test('404 for a missing definition (first) or subscriber, before the body is validated', async () => {
    const def = await definition('textline');
    const subscriber = await createSubscriber(t.db);
    const noDefinition = await t.inject({ method: 'POST', url: url(999999, 999999), headers, payload: { value: { bad: 1 } } });
    assert.equal(noDefinition.statusCode, 404);
    assert.deepEqual(noDefinition.json(), NOT_FOUND_DEFINITION);
    const noSubscriber = await t.inject({ method: 'PUT', url: url(999999, def.id), headers, payload: { value: 'x' } });
    assert.equal(noSubscriber.statusCode, 404);
    assert.deepEqual(noSubscriber.json(), NOT_FOUND_SUBSCRIBER);
    const word = await t.inject({ method: 'POST', url: url('abc', def.id), headers, payload: { value: 'x' } });
    assert.equal(word.statusCode, 404);
    const none = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), payload: { value: 'x' } });
    assert.equal(none.statusCode, 403);
  });
});

describe('GET and DELETE values', () => {
  test('lists values by definition id with cursor pages; unknown subscriber 404', async () => {
    const a = await definition('textline');
    const b = await definition('textarea');
    const subscriber = await createSubscriber(t.db);
    await t.inject({ method: 'POST', url: url(subscriber.id, a.id), headers, payload: { value: 'one' } });
    await t.inject({ method: 'POST', url: url(subscriber.id, b.id), headers, payload: { value: 'two' } });
    const view = await subscriberView(subscriber.id);
    const first = await t.inject({ method: 'GET', url: `${url(subscriber.id)}?limit=1`, headers });
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), {
      items: [{ subscriber: view, definition: a, value: 'one' }],
      pagination: { total: 2, limit: 1, has_more: true, next_cursor: a.id },
    });
    const second = await t.inject({ method: 'GET', url: `${url(subscriber.id)}?limit=1&after_id=${a.id}`, headers });
    assert.deepEqual(second.json(), {
      items: [{ subscriber: view, definition: b, value: 'two' }],
      pagination: { total: 2, limit: 1, has_more: true, next_cursor: b.id },
    });
    const missing = await t.inject({ method: 'GET', url: url(999999), headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND_SUBSCRIBER);
  });

  test('read one: 404 when no value; delete: 204 then 404', async () => {
    const def = await definition('textline');
    const subscriber = await createSubscriber(t.db);
    const none = await t.inject({ method: 'GET', url: url(subscriber.id, def.id), headers });
    assert.equal(none.statusCode, 404);
    assert.deepEqual(none.json(), NOT_FOUND_VALUE);
    await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: 'x' } });
    const del = await t.inject({ method: 'DELETE', url: url(subscriber.id, def.id), headers });
    assert.equal(del.statusCode, 204);
    const again = await t.inject({ method: 'DELETE', url: url(subscriber.id, def.id), headers });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), NOT_FOUND_VALUE);
    const gone = await t.inject({ method: 'GET', url: url(999999, 999999), headers });
    assert.equal(gone.statusCode, 404);
  });

  test('needs the subscribers privilege, not settings', async () => {
    const def = await definition('textline');
    const subscriber = await createSubscriber(t.db);
    const { headers: settingsOnly } = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const denied = await t.inject({ method: 'GET', url: url(subscriber.id), headers: settingsOnly });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to manage subscribers.' });
    const { headers: subscribersOnly } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const ok = await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers: subscribersOnly, payload: { value: 'x' } });
    assert.equal(ok.statusCode, 201);
  });

  test('deleting the subscriber removes their values', async () => {
    const def = await definition('textline');
    const subscriber = await createSubscriber(t.db);
    await t.inject({ method: 'POST', url: url(subscriber.id, def.id), headers, payload: { value: 'x' } });
    const del = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${subscriber.id}`, headers });
    assert.equal(del.statusCode, 204);
    const read = await t.inject({ method: 'GET', url: url(subscriber.id, def.id), headers });
    assert.equal(read.statusCode, 404);
  });
});
