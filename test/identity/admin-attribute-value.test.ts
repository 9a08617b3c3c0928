import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq } from 'drizzle-orm';
import { adminAttributeDefinitions, adminAttributeValues } from '../../src/db/schema/index.js';
import { createAdmin } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const DENIED = { message: 'You are not allowed to manage administrators.' };
const NO_ADMIN = { message: 'Administrator not found.' };
const NO_DEFINITION = { message: 'Attribute definition not found.' };
const NO_VALUE = { message: 'Administrator attribute not found.' };

const url = (adminId: number | string, definitionId?: number | string) =>
  `/api/v2/administrators/${adminId}/attributes${definitionId === undefined ? '' : `/${definitionId}`}`;

async function createDefinition(values: Partial<typeof adminAttributeDefinitions.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(adminAttributeDefinitions)
    .values({ name: `Attr ${Math.random().toString(36).slice(2)}`, type: 'textline', ...values })
    .returning();
  return row!;
}

type AdminRow = Awaited<ReturnType<typeof createAdmin>>;
type DefinitionRow = Awaited<ReturnType<typeof createDefinition>>;

function expectedAdmin(admin: AdminRow) {
  return {
    id: admin.id,
    login_name: admin.loginName,
    email: admin.email,
    super_user: admin.superUser,
    privileges: {
      subscribers: admin.privSubscribers,
      campaigns: admin.privCampaigns,
      statistics: admin.privStatistics,
      settings: admin.privSettings,
    },
    created_at: atom(admin.createdAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')),
    disabled: false,
  };
}

function expectedDefinition(def: DefinitionRow) {
  return {
    id: def.id,
    name: def.name,
    type: def.type,
    list_order: def.listOrder,
    default_value: def.defaultValue,
    required: def.required,
  };
}

function expectedValue(admin: AdminRow, def: DefinitionRow, value: string | null) {
  return { administrator: expectedAdmin(admin), definition: expectedDefinition(def), value };
}

async function storedValue(adminId: number, definitionId: number) {
  const [row] = await t.db
    .select()
    .from(adminAttributeValues)
    .where(and(eq(adminAttributeValues.administratorId, adminId), eq(adminAttributeValues.definitionId, definitionId)));
  return row;
}

describe('POST and PUT /api/v2/administrators/{adminId}/attributes/{definitionId}', () => {
  test('creates, then updates, answering 201 and the whole value both times', async () => {
    const admin = await createAdmin(t.db, { superUser: false, privileges: { campaigns: true } });
    const def = await createDefinition({ name: 'Phone', listOrder: 2 });
    const created = await t.inject({ method: 'POST', url: url(admin.id, def.id), headers, payload: { value: 'test value' } });
    assert.equal(created.statusCode, 201);
    assert.deepEqual(created.json(), expectedValue(admin, def, 'test value'));
    for (const method of ['POST', 'PUT'] as const) {
      const updated = await t.inject({ method, url: url(admin.id, def.id), headers, payload: { value: `updated ${method}` } });
      assert.equal(updated.statusCode, 201, method);
      assert.deepEqual(updated.json(), expectedValue(admin, def, `updated ${method}`));
    }
    assert.equal((await storedValue(admin.id, def.id))?.value, 'updated PUT');
  });

  test("absent or null value takes the definition's default; an empty string is a value", async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition({ defaultValue: 'fallback' });
    for (const payload of [{}, { value: null }]) {
      const res = await t.inject({ method: 'PUT', url: url(admin.id, def.id), headers, payload });
      assert.equal(res.statusCode, 201);
      assert.deepEqual(res.json(), expectedValue(admin, def, 'fallback'));
    }
    assert.equal((await storedValue(admin.id, def.id))?.value, 'fallback');
    const empty = await t.inject({ method: 'PUT', url: url(admin.id, def.id), headers, payload: { value: '' } });
    assert.deepEqual(empty.json(), expectedValue(admin, def, ''));
  });

  test('no value and no default is 400 Value is required', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    for (const payload of [{}, { value: null }]) {
      const res = await t.inject({ method: 'POST', url: url(admin.id, def.id), headers, payload });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { message: 'Value is required' });
    }
    assert.equal(await storedValue(admin.id, def.id), undefined);
  });

  test('a value that is not a string, or too long, is 422', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    for (const [value, type] of [
      [12, 'string'],
      [true, 'string'],
      [{ a: 1 }, 'string'],
      [['x'], 'string'],
    ] as const) {
      const res = await t.inject({ method: 'POST', url: url(admin.id, def.id), headers, payload: { value } });
      assert.equal(res.statusCode, 422, JSON.stringify(value));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors: { value: [`This value should be of type ${type}.`] } });
    }
    const long = await t.inject({ method: 'POST', url: url(admin.id, def.id), headers, payload: { value: 'x'.repeat(65_536) } });
    assert.equal(long.statusCode, 422);
    assert.deepEqual(long.json(), {
      message: 'Validation failed',
      errors: { value: ['This value is too long. It should have 65535 characters or less.'] },
    });
    const longest = await t.inject({ method: 'POST', url: url(admin.id, def.id), headers, payload: { value: 'x'.repeat(65_535) } });
    assert.equal(longest.statusCode, 201);
  });

  test('malformed JSON is 400', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    const res = await t.inject({
      method: 'POST',
      url: url(admin.id, def.id),
      headers: { ...headers, 'content-type': 'application/json' },
      payload: 'not json',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /^Invalid JSON: /);
  });

  test('missing definition, then missing administrator, are 404 before the body is validated', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    for (const method of ['POST', 'PUT'] as const) {
      const noDef = await t.inject({ method, url: url(admin.id, 999999), headers, payload: { value: 5 } });
      assert.equal(noDef.statusCode, 404);
      assert.deepEqual(noDef.json(), NO_DEFINITION);
      const neither = await t.inject({ method, url: url(999999, 999999), headers, payload: { value: 'x' } });
      assert.deepEqual(neither.json(), NO_DEFINITION);
      const noAdmin = await t.inject({ method, url: url(999999, def.id), headers, payload: { value: 5 } });
      assert.equal(noAdmin.statusCode, 404);
      assert.deepEqual(noAdmin.json(), NO_ADMIN);
    }
  });

  test('non-numeric ids are an unknown route', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    for (const path of [url('abc', def.id), url(admin.id, 'abc'), url(admin.id, '1.5')]) {
      const res = await t.inject({ method: 'POST', url: path, headers, payload: { value: 'x' } });
      assert.equal(res.statusCode, 404, path);
      assert.match(res.json().message, /^No route found for "POST /);
    }
  });
});

describe('GET /api/v2/administrators/{adminId}/attributes/{definitionId}', () => {
  test('answers the value; a stored null falls back to the default', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition({ defaultValue: 'dflt' });
    await t.db.insert(adminAttributeValues).values({ administratorId: admin.id, definitionId: def.id, value: 'test get value' });
    const res = await t.inject({ method: 'GET', url: url(admin.id, def.id), headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), expectedValue(admin, def, 'test get value'));
    await t.db.update(adminAttributeValues).set({ value: null }).where(eq(adminAttributeValues.definitionId, def.id));
    const fallback = await t.inject({ method: 'GET', url: url(admin.id, def.id), headers });
    assert.deepEqual(fallback.json(), expectedValue(admin, def, 'dflt'));
  });

  test('unknown administrator, unknown definition, no value: 404 each', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    const noAdmin = await t.inject({ method: 'GET', url: url(999999, def.id), headers });
    assert.equal(noAdmin.statusCode, 404);
    assert.deepEqual(noAdmin.json(), NO_ADMIN);
    for (const definitionId of [999999, def.id]) {
      const res = await t.inject({ method: 'GET', url: url(admin.id, definitionId), headers });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), NO_VALUE);
    }
    const text = await t.inject({ method: 'GET', url: url(admin.id, 'abc'), headers });
    assert.equal(text.statusCode, 404);
    assert.match(text.json().message, /^No route found/);
  });
});

describe('DELETE /api/v2/administrators/{adminId}/attributes/{definitionId}', () => {
  test('deletes the value, 204, and then it is gone', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    await t.db.insert(adminAttributeValues).values({ administratorId: admin.id, definitionId: def.id, value: 'v' });
    const res = await t.inject({ method: 'DELETE', url: url(admin.id, def.id), headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal(await storedValue(admin.id, def.id), undefined);
    const again = await t.inject({ method: 'DELETE', url: url(admin.id, def.id), headers });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), NO_VALUE);
    const definition = await t.inject({ method: 'GET', url: `/api/v2/administrators/attributes/${def.id}`, headers });
    assert.equal(definition.statusCode, 200, 'the definition stays');
  });

  test('unknown administrator and unknown definition are 404; non-numeric ids an unknown route', async () => {
    const admin = await createAdmin(t.db);
    const noAdmin = await t.inject({ method: 'DELETE', url: url(999999, 1), headers });
    assert.equal(noAdmin.statusCode, 404);
    assert.deepEqual(noAdmin.json(), NO_ADMIN);
    const noDef = await t.inject({ method: 'DELETE', url: url(admin.id, 999999), headers });
    assert.deepEqual(noDef.json(), NO_VALUE);
    const text = await t.inject({ method: 'DELETE', url: url('x', 1), headers });
    assert.equal(text.statusCode, 404);
    assert.match(text.json().message, /^No route found/);
  });
});

describe('GET /api/v2/administrators/{adminId}/attributes', () => {
  test("pages through the administrator's values by definition id; next_cursor is null", async () => {
    const admin = await createAdmin(t.db);
    const other = await createAdmin(t.db);
    const defs = [await createDefinition(), await createDefinition({ defaultValue: 'd2' }), await createDefinition()];
    await t.db.insert(adminAttributeValues).values([
      { administratorId: admin.id, definitionId: defs[2]!.id, value: 'three' },
      { administratorId: admin.id, definitionId: defs[0]!.id, value: 'one' },
      { administratorId: admin.id, definitionId: defs[1]!.id, value: null },
      { administratorId: other.id, definitionId: defs[0]!.id, value: 'not mine' },
    ]);
    const first = await t.inject({ method: 'GET', url: `${url(admin.id)}?limit=2`, headers });
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), {
      items: [expectedValue(admin, defs[0]!, 'one'), expectedValue(admin, defs[1]!, 'd2')],
      pagination: { total: 3, limit: 2, has_more: true, next_cursor: null },
    });
    const rest = await t.inject({ method: 'GET', url: `${url(admin.id)}?after_id=${defs[1]!.id}`, headers });
    assert.deepEqual(rest.json(), {
      items: [expectedValue(admin, defs[2]!, 'three')],
      pagination: { total: 3, limit: 25, has_more: false, next_cursor: null },
    });
  });

  test('an administrator without values has an empty page; an unknown one is 404', async () => {
    const admin = await createAdmin(t.db);
    const empty = await t.inject({ method: 'GET', url: url(admin.id), headers });
    assert.deepEqual(empty.json(), { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
    const missing = await t.inject({ method: 'GET', url: url(999999), headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NO_ADMIN);
    const text = await t.inject({ method: 'GET', url: url('abc'), headers });
    assert.equal(text.statusCode, 404);
    assert.match(text.json().message, /^No route found/);
  });
});

describe('cascades', () => {
  test('deleting a definition removes its values; deleting an administrator removes theirs', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition({ name: 'Cascade' });
    const keep = await createDefinition();
    for (const d of [def, keep]) {
      const res = await t.inject({ method: 'POST', url: url(admin.id, d.id), headers, payload: { value: 'v' } });
      assert.equal(res.statusCode, 201);
    }
    const del = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/attributes/${def.id}`, headers });
    assert.equal(del.statusCode, 204);
    const list = await t.inject({ method: 'GET', url: url(admin.id), headers });
    assert.deepEqual(
      list.json().items.map((i: { definition: { id: number } }) => i.definition.id),
      [keep.id],
    );
    const get = await t.inject({ method: 'GET', url: url(admin.id, def.id), headers });
    assert.deepEqual(get.json(), NO_VALUE);
    const delAdmin = await t.inject({ method: 'DELETE', url: `/api/v2/administrators/${admin.id}`, headers });
    assert.equal(delAdmin.statusCode, 204);
    assert.equal(await storedValue(admin.id, keep.id), undefined);
  });
});

describe('authorization', () => {
  test('every endpoint needs a session (403) and the settings privilege (403), before any 404', async () => {
    const admin = await createAdmin(t.db);
    const def = await createDefinition();
    const limited = await t.adminWithSession({
      superUser: false,
      privileges: { subscribers: true, campaigns: true, statistics: true },
    });
    const calls = [
      { method: 'GET', url: url(admin.id) },
      { method: 'GET', url: url(999999) },
      { method: 'POST', url: url(admin.id, def.id), payload: { value: 'x' } },
      { method: 'PUT', url: url(999999, 999999), payload: 'not json' },
      { method: 'GET', url: url(admin.id, def.id) },
      { method: 'DELETE', url: url(admin.id, def.id) },
    ] as const;
    for (const call of calls) {
      const anonymous = await t.inject({ ...call });
      assert.equal(anonymous.statusCode, 403, `${call.method} ${call.url}`);
      assert.deepEqual(anonymous.json(), NO_SESSION);
      const denied = await t.inject({ ...call, headers: limited.headers });
      assert.equal(denied.statusCode, 403, `${call.method} ${call.url}`);
      assert.deepEqual(denied.json(), DENIED);
    }
    const allowed = await t.adminWithSession({ superUser: false, privileges: { settings: true } });
    const ok = await t.inject({ method: 'PUT', url: url(admin.id, def.id), headers: allowed.headers, payload: { value: 'y' } });
    assert.equal(ok.statusCode, 201);
  });
});
