import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { media, mediaChunks, templates } from '../../src/db/schema/index.js';
import { createCampaign } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';
import { multipart, type FilePart } from './multipart.js';

/* Issue 26: the media library. Real images made by sharp, uploaded over HTTP, read back from the public address. */

const LIMIT = 1_000_000;
let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp({ mediaMaxSize: LIMIT, publicUrl: 'https://mail.example.org' });
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A real picture of the given size and format: a two-colour gradient, so encoders have something to encode. */
function picture(format: 'png' | 'jpeg' | 'gif' | 'webp', width = 640, height = 480): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    pixels[i * 3] = (i % width) % 256;
    pixels[i * 3 + 1] = Math.floor(i / width) % 256;
    pixels[i * 3 + 2] = 128;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

function upload(files: FilePart[], fields: Record<string, string> = {}, h = headers) {
  const form = multipart(fields, files);
  return t.inject({ method: 'POST', url: '/api/v2/media', headers: { ...h, ...form.headers }, payload: form.payload });
}
const file = (data: Buffer | string, filename: string, contentType = 'application/octet-stream'): FilePart => ({
  name: 'file',
  filename,
  contentType,
  data,
});
const pathOf = (url: string) => new URL(url).pathname;

describe('POST /api/v2/media', () => {
  for (const [format, type, ext] of [
    ['png', 'image/png', 'png'],
    ['jpeg', 'image/jpeg', 'jpg'],
    ['gif', 'image/gif', 'gif'],
    ['webp', 'image/webp', 'webp'],
  ] as const) {
    test(`a ${format.toUpperCase()} is stored, measured and served; whole body`, async () => {
      const bytes = await picture(format);
      // The declared type and name's extension say otherwise: the bytes decide.
      const res = await upload([file(bytes, `Summer Banner (final).${format === 'png' ? 'jpeg' : 'png'}`, 'text/plain')], { alt: ' A banner ' });
      assert.equal(res.statusCode, 201, res.body);
      const m = res.json();
      assert.match(m.url, /^https:\/\/mail\.example\.org\/media\/[A-Za-z0-9_-]{22}\/Summer-Banner-final\.\w+$/);
      const key = m.url.split('/')[4];
      assert.deepEqual(m, {
        id: m.id,
        url: `https://mail.example.org/media/${key}/Summer-Banner-final.${ext}`,
        thumbnail_url: `https://mail.example.org/media/${key}/thumbnail`,
        filename: `Summer-Banner-final.${ext}`,
        mime_type: type,
        size: bytes.length,
        width: 640,
        height: 480,
        alt: 'A banner',
        used_by: [],
        created_at: atom(m.created_at),
      });
      const served = await t.inject({ method: 'GET', url: pathOf(m.url) });
      assert.equal(served.statusCode, 200);
      assert.deepEqual(served.rawPayload, bytes);
      assert.equal(served.headers['content-type'], type);
      assert.equal(served.headers['content-length'], String(bytes.length));
      assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(served.headers['etag'], `"${sha(bytes)}"`);
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
    });
  }

  test('a larger image is kept in 256 KiB chunks and served whole', async () => {
    const bytes = await sharp(await picture('png', 600, 400))
      .png({ compressionLevel: 0 })
      .toBuffer();
    assert.ok(bytes.length > 600_000 && bytes.length < LIMIT, String(bytes.length));
    const res = await upload([file(bytes, 'big.png')]);
    assert.equal(res.statusCode, 201, res.body);
    const [chunks] = await t.db.select({ n: count() }).from(mediaChunks).where(eq(mediaChunks.mediaId, res.json().id));
    assert.equal(chunks!.n, Math.ceil(bytes.length / (256 * 1024)));
    const served = await t.inject({ method: 'GET', url: pathOf(res.json().url) });
    assert.equal(sha(served.rawPayload), sha(bytes));
  });

  test('the thumbnail is a WebP of at most 320 pixels, cached as immutable; a matching If-None-Match → 304', async () => {
    const res = await upload([file(await picture('jpeg', 1000, 500), 'wide.jpg')]);
    const m = res.json();
    const thumb = await t.inject({ method: 'GET', url: pathOf(m.thumbnail_url) });
    assert.equal(thumb.statusCode, 200);
    assert.equal(thumb.headers['content-type'], 'image/webp');
    assert.equal(thumb.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(thumb.headers['x-content-type-options'], 'nosniff');
    const meta = await sharp(thumb.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 320, 160]);
    const again = await t.inject({ method: 'GET', url: pathOf(m.thumbnail_url), headers: { 'if-none-match': String(thumb.headers['etag']) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
    const original = await t.inject({ method: 'GET', url: pathOf(m.url) });
    const notModified = await t.inject({ method: 'GET', url: pathOf(m.url), headers: { 'if-none-match': String(original.headers['etag']) } });
    assert.equal(notModified.statusCode, 304);
  });

  test('a small image is not enlarged for its thumbnail', async () => {
    const m = (await upload([file(await picture('png', 40, 30), 'tiny.png')])).json();
    const meta = await sharp((await t.inject({ method: 'GET', url: pathOf(m.thumbnail_url) })).rawPayload).metadata();
    assert.deepEqual([meta.width, meta.height], [40, 30]);
  });

  test('a non-image named .png → 415, whatever its declared type; nothing kept', async () => {
    const before = await t.db.select({ n: count() }).from(media);
    const res = await upload([file('MZ\x90\x00 this is not a picture', 'photo.png', 'image/png')]);
    assert.equal(res.statusCode, 415);
    assert.deepEqual(res.json(), { message: 'The file is not a PNG, JPEG, GIF or WebP image (its type is read from its bytes, not its name).' });
    assert.deepEqual(await t.db.select({ n: count() }).from(media), before);
  });

  test('SVG → 415 saying why', async () => {
    const svg = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="9" height="9"/></svg>';
    const res = await upload([file(svg, 'logo.svg', 'image/svg+xml')]);
    assert.equal(res.statusCode, 415);
    assert.deepEqual(res.json(), {
      message: 'SVG images are not accepted: they can carry scripts, and most mail clients do not show them. Upload a PNG, JPEG, GIF or WebP.',
    });
  });

  test('a truncated PNG → 422 on file', async () => {
    const bytes = await picture('png');
    const res = await upload([file(bytes.subarray(0, 200), 'cut.png')]);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), { message: 'Validation failed', errors: { file: ['The image cannot be read: it is damaged or not complete.'] } });
  });

  test('a canvas over 40 megapixels is refused from its header → 422', async () => {
    // A PNG of 8,000 × 6,000 one-colour pixels compresses to a few kilobytes: a decompression bomb in miniature.
    const bomb = await sharp({ create: { width: 8000, height: 6000, channels: 3, background: '#fff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    assert.ok(bomb.length < LIMIT, String(bomb.length));
    const res = await upload([file(bomb, 'bomb.png')]);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(Object.keys(res.json().errors), ['file']);
  });

  test('over MEDIA_MAX_SIZE → 413, while streaming and from Content-Length; nothing kept', async () => {
    const before = await t.db.select({ n: count() }).from(media);
    const big = Buffer.concat([await picture('png', 10, 10), Buffer.alloc(LIMIT)]);
    const streamed = upload([file(big, 'big.png')]);
    const res = await streamed;
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), { message: `The image is larger than the limit of ${LIMIT} bytes (MEDIA_MAX_SIZE).` });
    const form = multipart({}, [file(Buffer.concat([big, Buffer.alloc(100_000)]), 'bigger.png')]);
    const declared = await t.inject({ method: 'POST', url: '/api/v2/media', headers: { ...headers, ...form.headers }, payload: form.payload });
    assert.equal(declared.statusCode, 413);
    assert.deepEqual(await t.db.select({ n: count() }).from(media), before);
  });

  test('no file, an empty file, a long alt, not multipart → 4xx saying what is wrong', async () => {
    const none = await upload([], { alt: 'x' });
    assert.equal(none.statusCode, 422);
    assert.deepEqual(none.json().errors, { file: ['This value should not be blank.'] });
    const empty = await upload([file('', 'empty.png')]);
    assert.deepEqual(empty.json().errors, { file: ['The file is empty.'] });
    const alt = await upload([file(await picture('png', 10, 10), 'a.png')], { alt: 'x'.repeat(501) });
    assert.equal(alt.statusCode, 422);
    assert.deepEqual(alt.json().errors, { alt: ['This value is too long. It should have 500 characters or less.'] });
    const json = await t.inject({ method: 'POST', url: '/api/v2/media', headers, payload: { file: 'x' } });
    assert.equal(json.statusCode, 415);
  });
});

describe('privileges', () => {
  test('no session → 403; an administrator without the campaigns privilege → 403 on every route', async () => {
    const bytes = await picture('png', 10, 10);
    const anonymous = await upload([file(bytes, 'a.png')], {}, {});
    assert.equal(anonymous.statusCode, 403);
    assert.deepEqual(anonymous.json(), NO_SESSION);
    const { headers: other } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true, campaigns: false } });
    const denied = { message: 'You are not allowed to manage media.' };
    for (const res of [
      await upload([file(bytes, 'a.png')], {}, other),
      await t.inject({ method: 'GET', url: '/api/v2/media', headers: other }),
      await t.inject({ method: 'DELETE', url: '/api/v2/media/1', headers: other }),
    ]) {
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), denied);
    }
    const { headers: campaigner } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    assert.equal((await upload([file(bytes, 'a.png')], {}, campaigner)).statusCode, 201);
  });
});

describe('GET /api/v2/media and DELETE /api/v2/media/{id}', () => {
  test('newest first, keyset by before_id, with the campaigns and templates that use each image', async () => {
    const ids: number[] = [];
    for (const name of ['one', 'two', 'three']) ids.push((await upload([file(await picture('gif', 20, 20), `${name}.gif`)])).json().id);
    const first = await t.inject({ method: 'GET', url: '/api/v2/media?limit=2', headers });
    assert.equal(first.statusCode, 200);
    const page = first.json();
    assert.deepEqual(
      page.items.map((m: { id: number }) => m.id),
      [ids[2], ids[1]],
    );
    assert.equal(page.pagination.limit, 2);
    assert.equal(page.pagination.has_more, true);
    assert.equal(page.pagination.next_cursor, ids[1]);
    const second = await t.inject({ method: 'GET', url: `/api/v2/media?limit=2&before_id=${ids[1]}`, headers });
    assert.equal(second.json().items[0].id, ids[0]);
  });

  test('an image a campaign or template references is refused with 409 naming them; once unused it goes', async () => {
    const m = (await upload([file(await picture('png', 30, 30), 'logo.png')])).json();
    const campaign = await createCampaign(t.db, { subject: 'Hi [FIRST NAME]', name: 'Winter letter', body: `<img src="${m.url}" alt="">` });
    const [template] = await t.db
      .insert(templates)
      .values({ title: 'Branded', content: `<p><img src="${m.url}"></p>[CONTENT]` })
      .returning();
    const used = [
      { kind: 'campaign', id: campaign.id, name: 'Winter letter' },
      { kind: 'template', id: template!.id, name: 'Branded' },
    ];
    const listed = await t.inject({ method: 'GET', url: `/api/v2/media/${m.id}`, headers });
    assert.deepEqual(listed.json().used_by, used);
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/media/${m.id}`, headers });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), {
      message: `The image is used by campaign ${campaign.id} “Winter letter”, template ${template!.id} “Branded”; remove it from them before deleting it.`,
      used_by: used,
    });
    assert.equal((await t.inject({ method: 'GET', url: pathOf(m.url) })).statusCode, 200);

    await t.db.delete(templates).where(eq(templates.id, template!.id));
    const { campaigns } = await import('../../src/db/schema/index.js');
    await t.db.update(campaigns).set({ body: '<p>No picture</p>' }).where(eq(campaigns.id, campaign.id));
    const deleted = await t.inject({ method: 'DELETE', url: `/api/v2/media/${m.id}`, headers });
    assert.equal(deleted.statusCode, 204);
    assert.equal((await t.inject({ method: 'GET', url: pathOf(m.url) })).statusCode, 404);
    assert.equal((await t.inject({ method: 'GET', url: pathOf(m.thumbnail_url) })).statusCode, 404);
    const [left] = await t.db.select({ n: count() }).from(mediaChunks).where(eq(mediaChunks.mediaId, m.id));
    assert.equal(left!.n, 0);
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/media/${m.id}`, headers })).statusCode, 404);
  });
});

describe('public addresses', () => {
  test('only the stored name under its key; a wrong name, an unknown key or a path → 404', async () => {
    const m = (await upload([file(await picture('png', 10, 10), 'pic.png')])).json();
    const key = m.url.split('/')[4];
    for (const url of [
      `/media/${key}/other.png`,
      `/media/AAAAAAAAAAAAAAAAAAAAAA/pic.png`,
      `/media/${key}/..%2F..%2Fetc%2Fpasswd`,
      `/media/${m.id}/pic.png`,
    ]) {
      const res = await t.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), { message: 'Image not found.' });
    }
  });
});
