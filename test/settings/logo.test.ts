import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helper.js';

/* The organisation's logo (issue 26): type read from the bytes, size-limited, stored in the database, served by hash. */

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('organisation logo', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  before(async () => {
    t = await startTestApp({ settingsFromEnv: [] });
    headers = (await t.adminWithSession()).headers;
  });
  after(async () => t?.close());

  const put = (payload: Buffer, contentType: string, h = headers) =>
    t.inject({ method: 'PUT', url: '/api/v2/settings/logo', headers: { ...h, 'content-type': contentType }, payload });

  test('upload, then served anonymously with long cache headers; replaced and removed', async () => {
    const res = await put(PNG, 'image/png');
    assert.equal(res.statusCode, 200, res.body);
    const logo = res.json().logo;
    assert.match(logo.url, /^http:\/\/localhost:8080\/api\/v2\/logo\/[0-9a-f]{64}$/);
    assert.deepEqual({ ...logo, url: '' }, { url: '', content_type: 'image/png', size: PNG.length });
    const path = new URL(logo.url).pathname;
    const served = await t.inject({ method: 'GET', url: path });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.deepEqual(served.rawPayload, PNG);

    // A GIF sent as image/png: the type is the bytes'.
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(20)]);
    const replaced = (await put(gif, 'image/png')).json().logo;
    assert.equal(replaced.content_type, 'image/gif');
    assert.equal((await t.inject({ method: 'GET', url: path })).statusCode, 404);

    const removed = await t.inject({ method: 'DELETE', url: '/api/v2/settings/logo', headers });
    assert.equal(removed.json().logo, null);
    assert.equal((await t.inject({ method: 'GET', url: new URL(replaced.url).pathname })).statusCode, 404);
  });

  test('not an image, too large, another type, not a super user: refused, nothing stored', async () => {
    const svg = await put(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/png');
    assert.equal(svg.statusCode, 422);
    assert.deepEqual(svg.json(), {
      message: 'Validation failed',
      errors: { logo: ['The logo must be a PNG, JPEG, GIF or WebP image (read from the file itself).'] },
    });
    const big = await put(Buffer.concat([PNG, Buffer.alloc(600 * 1024)]), 'image/png');
    assert.equal(big.statusCode, 413);
    assert.equal((await put(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml')).statusCode, 422);
    const json = await put(Buffer.from('{}'), 'application/json');
    assert.equal(json.statusCode, 415);
    assert.deepEqual(json.json(), { message: 'Send the image itself, as image/png, image/jpeg, image/gif, image/webp.' });
    const other = await t.adminWithSession({ loginName: 'plain-admin', superUser: false });
    assert.equal((await put(PNG, 'image/png', other.headers)).statusCode, 403);
    const view = await t.inject({ method: 'GET', url: '/api/v2/settings', headers });
    assert.equal(view.json().logo, null);
  });
});
