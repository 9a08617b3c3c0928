import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { chooseEncoding, registerConsole } from '../../src/plugins/console.js';

/** How the service serves the console's files (a stand-in build, so this runs without Vite or a browser). */
const BIG = Buffer.from('export const words = ' + JSON.stringify(Array.from({ length: 2000 }, (_, i) => `word ${i}`)) + ';\n');

describe('serving the console', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-console-'));
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  const missing = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  before(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><title>Mailroom</title><script type="module" src="/admin/assets/index-abc123.js"></script>',
    );
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    // A file with the build's precompressed copies beside it (web/vite.config.ts writes them).
    writeFileSync(join(dir, 'assets', 'big-def456.js'), BIG);
    writeFileSync(join(dir, 'assets', 'big-def456.js.br'), brotliCompressSync(BIG));
    writeFileSync(join(dir, 'assets', 'big-def456.js.gz'), gzipSync(BIG));
    await registerConsole(app, { dir });
    await registerConsole(missing, { dir: join(dir, 'nothing-here') });
  });
  after(async () => {
    await app.close();
    await missing.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('index.html is revalidated on every load, under a policy that only allows the service itself', async () => {
    for (const url of ['/admin', '/admin/', '/admin/lists/3', '/admin/subscribers?q=x']) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      assert.match(String(res.headers['content-security-policy']), /default-src 'self'; script-src 'self';/);
      assert.match(res.body, /<title>Mailroom<\/title>/);
    }
  });

  test('fingerprinted assets are cached for a year; a missing one is a 404, not the app', async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/assets/index-abc123.js' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(res.body, 'console.log(1)');
    const gone = await app.inject({ method: 'GET', url: '/admin/assets/index-old999.js' });
    assert.equal(gone.statusCode, 404);
  });

  test('precompressed copies are sent as the client accepts them, with Vary, Content-Length and caching kept', async () => {
    const url = '/admin/assets/big-def456.js';
    const cases: [string | undefined, string | undefined][] = [
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['*', 'br'],
      ['br;q=0, gzip;q=0', undefined],
      ['identity', undefined],
      [undefined, undefined],
    ];
    for (const [accept, encoding] of cases) {
      const res = await app.inject({ method: 'GET', url, headers: accept === undefined ? {} : { 'accept-encoding': accept } });
      assert.equal(res.statusCode, 200, String(accept));
      assert.equal(res.headers['content-encoding'], encoding, String(accept));
      assert.equal(res.headers['vary'], 'Accept-Encoding', String(accept));
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      const bytes = res.rawPayload;
      assert.equal(Number(res.headers['content-length']), bytes.length, String(accept));
      const decoded = encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes;
      assert.ok(decoded.equals(BIG), `${String(accept)}: the bytes decode to the file`);
      if (encoding) assert.ok(bytes.length < BIG.length / 3, 'compressed');
    }
    // The copies are not files of their own.
    assert.equal((await app.inject({ method: 'GET', url: `${url}.br` })).statusCode, 404);
    // A file without copies goes as it is, whatever is accepted.
    const plain = await app.inject({ method: 'GET', url: '/admin/assets/index-abc123.js', headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, 'console.log(1)');
  });

  test('the encoding chosen from Accept-Encoding', () => {
    const both = { br: Buffer.from('b'), gzip: Buffer.from('g') };
    assert.equal(chooseEncoding('GZIP', both), 'gzip');
    assert.equal(chooseEncoding('br;q=0.1, gzip;q=0.9', both), 'gzip');
    assert.equal(chooseEncoding('*;q=0', both), null);
    assert.equal(chooseEncoding('br;q=abc', both), null);
    assert.equal(chooseEncoding('br', { gzip: both.gzip }), null);
    assert.equal(chooseEncoding(','.repeat(100_000), both), null);
  });

  test('without a build, /admin/ says how to make one', async () => {
    const res = await missing.inject({ method: 'GET', url: '/admin/' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.body, 'The admin console is not built. Run `npm run build` (or `npm run build:console`), then restart the service.\n');
  });
});
