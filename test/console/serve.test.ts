import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { registerConsole } from '../../src/plugins/console.js';

/** How the service serves the console's files (a stand-in build, so this runs without Vite or a browser). */
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

  test('without a build, /admin/ says how to make one', async () => {
    const res = await missing.inject({ method: 'GET', url: '/admin/' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.body, 'The admin console is not built. Run `npm run build` (or `npm run build:console`), then restart the service.\n');
  });
});
