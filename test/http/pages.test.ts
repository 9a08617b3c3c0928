import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { contentSecurityPolicy } from '../../src/public/headers.js';
import { loadConfig } from '../../src/config.js';
import { openTestDatabase, type TestDatabase } from '../db.js';

/*
 * Pages, headers, the OpenAPI document and the request log, on an app whose log lines this file reads.
 */

let app: FastifyInstance;
let testDb: TestDatabase;
let dataDir: string;
const lines: Record<string, unknown>[] = [];

before(async () => {
  testDb = await openTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-pages-'));
  const config = loadConfig({ PGLITE_MAX_WAIT_MS: '0', LOG_LEVEL: 'info', DATA_DIR: dataDir, SEND_WORKER: 'off' });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  app = await buildApp({ config, database: testDb.database, migrate: false, logger: { level: 'info', stream } });
  await app.ready();
});
after(async () => {
  await app.close();
  await testDb.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

describe('HTML pages', () => {
  test('GET / redirects to the admin console', async () => {
    const res = await app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/admin/');
  });

  test('every HTML page carries CSP, nosniff and frame protection', async () => {
    // The public pages of issue 13 (confirm, sign-up forms) set their own stricter policy (src/public/headers.ts), and
    // so does a tracked link's "not found" page since it is one of them (issue 25).
    const publicPages = ['/api/v2/subscribers/confirm', '/api/v2/subscribers/confirm?uniqueId=nobody', '/subscribe/1', '/lt/not-a-link'];
    for (const url of ['/api/v2', ...publicPages]) {
      const res = await app.inject({ method: 'GET', url });
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      if (publicPages.includes(url)) assert.equal(res.headers['content-security-policy'], contentSecurityPolicy(), url);
      else assert.equal(res.headers['content-security-policy'], HTML_CSP, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['x-frame-options'], 'DENY', url);
    }
  });

  test('/docs has its own policy, which allows only its own scripts and styles', async () => {
    let res = await app.inject({ method: 'GET', url: '/docs' });
    if (res.statusCode >= 300 && res.statusCode < 400) res = await app.inject({ method: 'GET', url: String(res.headers.location) });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /https:|unsafe-eval/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
  });
});

describe('the request log', () => {
  test('one info line per request, with method, path, status and time', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'log-once-1' } });
    assert.equal(res.statusCode, 200);
    const mine = lines.filter((l) => l.reqId === 'log-once-1');
    assert.equal(mine.length, 1, JSON.stringify(mine));
    const [line] = mine as [{ level: number; msg: string; req: { method: string; url: string }; res: { statusCode: number }; responseTime: number }];
    assert.equal(line.level, 30);
    assert.equal(line.msg, 'request completed');
    assert.deepEqual([line.req.method, line.req.url, line.res.statusCode], ['GET', '/healthz', 200]);
    assert.equal(typeof line.responseTime, 'number');
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/api/v2/nothing', headers: { 'x-request-id': 'log-once-2' } });
    assert.equal(lines.filter((l) => l.reqId === 'log-once-2').length, 1, JSON.stringify(lines));
  });
});

describe('the OpenAPI document', () => {
  test('has a server, no private keywords, and both attachment downloads public', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
      servers: { url: string }[];
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    }>();
    assert.deepEqual(
      doc.servers.map((s) => s.url),
      ['/'],
    );
    assert.doesNotMatch(JSON.stringify(doc), /errorMessage/);
    for (const path of ['/attachments/download/{id}', '/api/v2/attachments/download/{id}']) {
      assert.deepEqual(doc.paths[path]?.get?.security, [], path);
    }
  });
});
