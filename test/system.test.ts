import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from './helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every route Fastify registered, as `METHOD path` with OpenAPI's `{param}` (HEAD left out), read from printRoutes. */
function registeredRoutes(): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const method of (match[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD')) out.push(`${method} ${path}`);
  }
  return out;
}

/** The status codes each operation declares (the route schemas' `response` keys). */
const DECLARED: Record<string, string[]> = {
  'GET /api/v2': ['200'],
  'GET /healthz': ['200'],
  'GET /readyz': ['200', '503'],
  'POST /api/v2/sessions': ['201', '400', '401', '422', '429'],
  'GET /api/v2/sessions/me': ['200', '403'],
  'DELETE /api/v2/sessions/{sessionId}': ['204', '403', '404'],
  'GET /api/v2/administrators': ['200', '403'],
  'POST /api/v2/administrators': ['201', '400', '403', '409', '422'],
  'GET /api/v2/administrators/{adminId}': ['200', '403', '404'],
  'PUT /api/v2/administrators/{adminId}': ['200', '400', '403', '404', '409', '422'],
  'DELETE /api/v2/administrators/{adminId}': ['204', '403', '404', '409'],
};

describe('GET /api/v2', () => {
  test("phpList's empty start page, with the HTML pages' security headers", async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.body, 'This page has been intentionally left empty.');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers['content-security-policy']), /^default-src 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    const slash = await t.inject({ method: 'GET', url: '/api/v2/' });
    assert.equal(slash.body, 'This page has been intentionally left empty.');
  });
});

describe('health and readiness', () => {
  test('/healthz and /readyz need no key', async () => {
    const health = await t.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await t.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
  });
});

describe('OpenAPI and /docs', () => {
  test('OpenAPI 3.1 lists every registered route with every declared status', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, { responses: object; operationId?: string }>> };
    assert.equal(doc.openapi, '3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    // The reference UI and the admin console are pages, not API operations (GET /, their redirect, is documented).
    const registered = registeredRoutes().filter((r) => !/ \/(docs|admin)/.test(r) && r !== 'GET /api/v2/openapi.json');
    assert.ok(registered.length >= Object.keys(DECLARED).length, registered.join('\n'));
    assert.deepEqual([...documented].sort(), [...registered].sort());
    for (const route of registered) {
      const [method, path] = route.split(' ') as [string, string];
      const op = doc.paths[path]![method.toLowerCase()]!;
      assert.ok(op.operationId, `${route} has an operationId`);
      const statuses = Object.keys(op.responses).sort();
      if (DECLARED[route]) assert.deepEqual(statuses, DECLARED[route], route);
      // A redirect's success is its 3xx (click tracking).
      assert.ok(
        statuses.some((s) => s.startsWith('2') || s.startsWith('3')),
        `${route} documents its success`,
      );
    }
  });

  test('every route’s validators and serialisers compile (on first use; src/server.ts compiles them all before it listens)', async () => {
    // A few are compiled already (this file's requests so far); the rest now, and none twice.
    const compiled = t.app.compileSchemas();
    assert.ok(compiled > 300, `${compiled} schemas compiled`);
    assert.equal(t.app.compileSchemas(), 0);
    // Compiled ahead or on first use, a validator answers the same.
    const res = await t.inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 7, password: 'x' } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), { message: 'Validation failed', errors: { login_name: ['This value should be of type string.'] } });
  });

  test('/docs serves HTML whose assets come from the service', async () => {
    for (const url of ['/docs', '/docs/']) {
      let res = await t.inject({ method: 'GET', url });
      let page = url;
      if (res.statusCode >= 300 && res.statusCode < 400) {
        page = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
        res = await t.inject({ method: 'GET', url: page });
      }
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      const assets = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), url);
      for (const asset of assets) {
        assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is served locally`);
        const resolved = new URL(asset, `http://localhost${page}`).pathname;
        const loaded = await t.inject({ method: 'GET', url: resolved });
        assert.equal(loaded.statusCode, 200, `${url}: ${resolved}`);
        if (resolved.endsWith('.js')) assert.doesNotMatch(loaded.body.slice(0, 2000), /url: "https?:\/\//, resolved);
      }
    }
  });
});

describe('routing and request ids', () => {
  test('an unknown route is 404 with phpList’s message', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/xyz?x=1' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { message: 'No route found for "GET http://localhost:80/api/v2/xyz"' });
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  test('x-request-id echoes a valid id and is generated otherwise', async () => {
    const given = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123_X.y' } });
    assert.equal(given.headers['x-request-id'], 'abc-123_X.y');
    const none = await t.inject({ method: 'GET', url: '/healthz' });
    assert.match(String(none.headers['x-request-id']), UUID);
    const other = await t.inject({ method: 'GET', url: '/healthz' });
    assert.notEqual(other.headers['x-request-id'], none.headers['x-request-id']);
    for (const bad of ['has space', 'x'.repeat(65), 'semi;colon']) {
      const res = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } });
      assert.match(String(res.headers['x-request-id']), UUID, bad);
    }
    const error = await t.inject({ method: 'GET', url: '/api/v2/nothing', headers: { 'x-request-id': 'on-error' } });
    assert.equal(error.headers['x-request-id'], 'on-error');
  });
});
