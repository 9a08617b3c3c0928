import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { adminAttributeDefinitions, adminAttributeValues } from '../../src/db/schema/index.js';
import { createAdmin } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const DENIED = { message: 'You are not allowed to manage administrators.' };
const NOT_FOUND = { message: 'Attribute definition not found.' };
const BASE = '/api/v2/administrators/attributes';

async function createDefinition(values: Partial<typeof adminAttributeDefinitions.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(adminAttributeDefinitions)
    .values({ name: `Attr ${Math.random().toString(36).slice(2)}`, type: 'textline', ...values })
    .returning();
  return row!;
}

describe('POST /api/v2/administrators/attributes', () => {
  test('creates a definition and answers it whole, 201', async () => {
    const res = await t.inject({
      method: 'POST',
      url: BASE,
      headers,
      payload: { name: ' Test Attribute ', type: 'textline', order: 1, defaultValue: 'default', required: true, table_name: 'x' },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      name: 'Test Attribute',
      type: 'textline',
      list_order: 1,
      default_value: 'default',
      required: true,
    });
    const [row] = await t.db.select().from(adminAttributeDefinitions).where(eq(adminAttributeDefinitions.id, body.id));
    assert.equal(row?.listOrder, 1);
  });

  test('only a name: type textline, nulls, required false', async () => {
    for (const payload of [{ name: 'Only Name' }, { name: 'Null Type', type: null, order: null, default_value: null }]) {
      const res = await t.inject({ method: 'POST', url: BASE, headers, payload });
      assert.equal(res.statusCode, 201);
      const body = res.json();
      assert.deepEqual(body, {
        id: body.id,
        name: payload.name,
        type: 'textline',
        list_order: null,
        default_value: null,
        required: false,
      });
    }
  });

  test('a duplicate name, in any case, is 409', async () => {
    await createDefinition({ name: 'Department' });
    const res = await t.inject({ method: 'POST', url: BASE, headers, payload: { name: 'DEPARTMENT', type: 'hidden' } });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { message: 'Attribute definition already exists.' });
  });

  test('missing and blank names are 422', async () => {
    for (const payload of [{}, { name: '   ' }, { name: '' }]) {
      const res = await t.inject({ method: 'POST', url: BASE, headers, payload });
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors: { name: ['This value should not be blank.'] } });
    }
  });

  test('an unknown type is 422 with the allowed values', async () => {
    const res = await t.inject({ method: 'POST', url: BASE, headers, payload: { name: 'Typed', type: 'select' } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: { type: ['Invalid type. Allowed values: hidden, textline.'] },
    });
  });

  test('wrong JSON types are 422 on each field', async () => {
    const res = await t.inject({
      method: 'POST',
      url: BASE,
      headers,
      payload: { name: 5, type: 1, order: '1', default_value: false, required: 'yes' },
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: {
        name: ['This value should be of type string.'],
        type: ['This value should be of type string.'],
        order: ['This value should be of type integer.'],
        default_value: ['This value should be of type string.'],
        required: ['This value should be of type boolean.'],
      },
    });
    const fraction = await t.inject({ method: 'POST', url: BASE, headers, payload: { name: 'Frac', order: 1.5 } });
    assert.equal(fraction.statusCode, 422);
    assert.deepEqual(Object.keys(fraction.json().errors), ['order']);
  });

  test('malformed JSON is 400', async () => {
    const res = await t.inject({
      method: 'POST',
      url: BASE,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: 'not json',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /^Invalid JSON: /);
  });
});

describe('GET /api/v2/administrators/attributes', () => {
  test('pages through definitions by id', async () => {
    const all = await t.db.select().from(adminAttributeDefinitions);
    const first = await t.inject({ method: 'GET', url: `${BASE}?limit=2`, headers });
    assert.equal(first.statusCode, 200);
    const sorted = all.sort((a, b) => a.id - b.id);
    const expected = sorted.slice(0, 2).map((r) => ({
      id: r.id,
      name: r.name,
      type: r.type,
      list_order: r.listOrder,
      default_value: r.defaultValue,
      required: r.required,
    }));
    assert.deepEqual(first.json(), {
      items: expected,
      pagination: { total: all.length, limit: 2, has_more: true, next_cursor: expected[1]!.id },
    });
    const rest = await t.inject({ method: 'GET', url: `${BASE}?after_id=${expected[1]!.id}`, headers });
    assert.equal(rest.json().items.length, all.length - 2);
    assert.equal(rest.json().pagination.has_more, false);
    const empty = await t.inject({ method: 'GET', url: `${BASE}?after_id=2147483647`, headers });
    assert.deepEqual(empty.json(), { items: [], pagination: { total: all.length, limit: 25, has_more: false, next_cursor: null } });
  });
});

describe('GET /api/v2/administrators/attributes/{definitionId}', () => {
  test('answers the definition, with a legacy stored type as it is', async () => {
    const def = await createDefinition({ name: 'Test Get Attribute', type: 'text', listOrder: 3 });
    const res = await t.inject({ method: 'GET', url: `${BASE}/${def.id}`, headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: def.id,
      name: 'Test Get Attribute',
      type: 'text',
      list_order: 3,
      default_value: null,
      required: false,
    });
  });

  test('unknown id is 404; non-numeric id is an unknown route', async () => {
    const res = await t.inject({ method: 'GET', url: `${BASE}/999999`, headers });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), NOT_FOUND);
    const text = await t.inject({ method: 'GET', url: `${BASE}/abc`, headers });
    assert.equal(text.statusCode, 404);
    assert.match(text.json().message, /^No route found for "GET /);
  });

  test('does not collide with /administrators/{adminId}', async () => {
    const admin = await createAdmin(t.db);
    const res = await t.inject({ method: 'GET', url: `/api/v2/administrators/${admin.id}`, headers });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, admin.id);
    const list = await t.inject({ method: 'GET', url: BASE, headers });
    assert.ok(Array.isArray(list.json().items));
    assert.equal(list.json().pagination.limit, 25);
  });
});

describe('PUT /api/v2/administrators/attributes/{definitionId}', () => {
  test('updates and answers whole; fields not sent stay', async () => {
    const def = await createDefinition({ name: 'Before', listOrder: 4, defaultValue: 'd', required: false });
    const res = await t.inject({
      method: 'PUT',
      url: `${BASE}/${def.id}`,
      headers,
      payload: { name: 'Updated Attribute', type: 'hidden', required: true },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      id: def.id,
      name: 'Updated Attribute',
      type: 'hidden',
      list_order: 4,
      default_value: 'd',
      required: true,
    });
    const cleared = await t.inject({
      method: 'PUT',
      url: `${BASE}/${def.id}`,
      headers,
      payload: { name: 'updated attribute', type: null, order: null, default_value: null },
    });
    assert.deepEqual(cleared.json(), {
      id: def.id,
      name: 'updated attribute',
      type: 'textline',
      list_order: null,
      default_value: null,
      required: true,
    });
  });

  test("another definition's name is 409; its own name is fine", async () => {
    await createDefinition({ name: 'Taken Name' });
    const def = await createDefinition({ name: 'Mine' });
    const res = await t.inject({ method: 'PUT', url: `${BASE}/${def.id}`, headers, payload: { name: 'taken name' } });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { message: 'Another attribute with this name already exists.' });
    const same = await t.inject({ method: 'PUT', url: `${BASE}/${def.id}`, headers, payload: { name: 'Mine' } });
    assert.equal(same.statusCode, 200);
  });

  test('unknown id is 404 before the body is validated', async () => {
    for (const payload of [{ name: 'x' }, { name: 5, type: 'bogus' }]) {
      const res = await t.inject({ method: 'PUT', url: `${BASE}/999999`, headers, payload });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), NOT_FOUND);
    }
    const malformed = await t.inject({
      method: 'PUT',
      url: `${BASE}/999999`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(malformed.statusCode, 400);
    const text = await t.inject({ method: 'PUT', url: `${BASE}/x1`, headers, payload: { name: 'x' } });
    assert.equal(text.statusCode, 404);
    assert.match(text.json().message, /^No route found/);
  });

  test('invalid bodies are 422', async () => {
    const def = await createDefinition();
    const res = await t.inject({ method: 'PUT', url: `${BASE}/${def.id}`, headers, payload: { type: 'checkbox', required: 1 } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: {
        name: ['This value should not be blank.'],
        type: ['Invalid type. Allowed values: hidden, textline.'],
        required: ['This value should be of type boolean.'],
      },
    });
  });
});

describe('DELETE /api/v2/administrators/attributes/{definitionId}', () => {
  test('deletes the definition and every value for it, 204', async () => {
    const def = await createDefinition();
    const admin = await createAdmin(t.db);
    await t.db.insert(adminAttributeValues).values({ administratorId: admin.id, definitionId: def.id, value: 'v' });
    const res = await t.inject({ method: 'DELETE', url: `${BASE}/${def.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const values = await t.db.select().from(adminAttributeValues).where(eq(adminAttributeValues.definitionId, def.id));
    assert.deepEqual(values, []);
    const again = await t.inject({ method: 'DELETE', url: `${BASE}/${def.id}`, headers });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), NOT_FOUND);
    const get = await t.inject({ method: 'GET', url: `${BASE}/${def.id}`, headers });
    assert.equal(get.statusCode, 404);
  });

  test('non-numeric id is an unknown route', async () => {
    const res = await t.inject({ method: 'DELETE', url: `${BASE}/abc`, headers });
    assert.equal(res.statusCode, 404);
    assert.match(res.json().message, /^No route found/);
  });
});

describe('authorization', () => {
  test('every endpoint needs a session (403) and the settings privilege (403)', async () => {
    const def = await createDefinition();
    const limited = await t.adminWithSession({
      superUser: false,
      privileges: { subscribers: true, campaigns: true, statistics: true },
    });
    const allowed = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const calls = [
      { method: 'GET', url: BASE },
      { method: 'POST', url: BASE, payload: { name: 'Nope' } },
      { method: 'GET', url: `${BASE}/${def.id}` },
      { method: 'PUT', url: `${BASE}/${def.id}`, payload: { name: 'Nope' } },
      { method: 'DELETE', url: `${BASE}/${def.id}` },
    ] as const;
    for (const call of calls) {
      const anonymous = await t.inject({ ...call });
      assert.equal(anonymous.statusCode, 403, `${call.method} ${call.url}`);
      assert.deepEqual(anonymous.json(), NO_SESSION);
      const denied = await t.inject({ ...call, headers: limited.headers });
      assert.equal(denied.statusCode, 403, `${call.method} ${call.url}`);
      assert.deepEqual(denied.json(), DENIED);
    }
    const ok = await t.inject({ method: 'GET', url: `${BASE}/${def.id}`, headers: allowed.headers });
    assert.equal(ok.statusCode, 200);
  });
});
