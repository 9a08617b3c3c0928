import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { templateImages, templates } from '../../src/db/schema/index.js';
import { startTestApp, type TestApp } from '../helper.js';
import { multipart } from './multipart.js';

let t: TestApp;
let headers: Record<string, string>;
let images: Server;
let imageBase: string;
const hung = new Set<ServerResponse>();
/** Requests the image server got, by path: what the SSRF guard must keep at zero. */
const requested: string[] = [];

before(async () => {
  // Loopback server for check_external_images: a 200 image, a 404 one, one that never answers, redirects.
  images = createServer((req, res) => {
    requested.push(req.url ?? '');
    if (req.url === '/to-any') return res.writeHead(302, { location: `http://0.0.0.0:${port()}/ok.png?any` }).end();
    if (req.url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (req.url === '/ok.png') return res.writeHead(200, { 'content-type': 'image/png' }).end();
    if (req.url === '/hop') return res.writeHead(302, { location: '/ok.png' }).end();
    if (req.url === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/slow.png') return void hung.add(res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${port()}`;
  // The image server is on loopback: only IMAGE_CHECK_ALLOW_LOOPBACK lets the check reach it.
  t = await startTestApp({ imageCheckTimeoutMs: 300, imageCheckAllowLoopback: true });
  ({ headers } = await t.adminWithSession());
});
after(async () => {
  for (const res of hung) res.destroy();
  images.closeAllConnections();
  await new Promise((resolve) => images.close(resolve));
  await t.close();
});

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const DENIED = { message: 'You are not allowed to manage templates.' };
const NOT_FOUND = { message: 'Template not found.' };
const TAKEN = { message: 'Template title already exists.' };
const PAGE = '<html><body>[CONTENT]</body></html>';
const port = () => (images.address() as AddressInfo).port;
const UNREACHABLE = (src: string) => `Image "${src}" could not be validated: no 200 answer from a public address.`;
let titles = 0;
const title = () => `Template ${++titles}`;

const create = (payload: Record<string, unknown>) => t.inject({ method: 'POST', url: '/api/v2/templates', headers, payload });
const invalid = (errors: Record<string, string[]>) => ({ message: 'Validation failed', errors });

describe('POST /api/v2/templates (JSON)', () => {
  test('creates a template; images null when there are none; check flags default false', async () => {
    const res = await create({ title: 'New Template', content: PAGE, text: '[CONTENT]' });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, { id: body.id, title: 'New Template', content: PAGE, text: '[CONTENT]', list_order: 0, images: null });
    // Unchecked: relative links and images are fine without the flags.
    const loose = await create({ title: title(), content: '<a href="x.html">x</a><img src="y.png">[CONTENT]' });
    assert.equal(loose.statusCode, 201);
  });

  test('phpList test payload with check_links: 201; camelCase accepted', async () => {
    const res = await create({
      title: title(),
      content: '<html><body>[CONTENT]</body></html>',
      text: '[CONTENT]',
      checkLinks: true,
      check_images: false,
      check_external_images: false,
      listOrder: 7,
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().list_order, 7);
  });

  test('extracts images: data: URIs decoded, remote ones by address, width and height when numeric', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const content =
      `<p>[CONTENT]</p><img src="data:image/png;base64,${png.toString('base64')}" width="10" height="20">` +
      '<IMG SRC="https://cdn.example.com/logo.JPG?v=2" width="50%"><img src="https://cdn.example.com/logo.JPG?v=2">' +
      '<img src="/relative/pic">';
    const res = await create({ title: 'With images', content });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    const ids = body.images.map((i: { id: number }) => i.id);
    assert.deepEqual(body.images, [
      { id: ids[0], template_id: body.id, mimetype: 'image/png', filename: 'image-1.png', data: png.toString('base64'), width: 10, height: 20 },
      {
        id: ids[1],
        template_id: body.id,
        mimetype: 'image/jpeg',
        filename: 'https://cdn.example.com/logo.JPG?v=2',
        data: '',
        width: null,
        height: null,
      },
      { id: ids[2], template_id: body.id, mimetype: null, filename: '/relative/pic', data: '', width: null, height: null },
    ]);
    const get = await t.inject({ method: 'GET', url: `/api/v2/templates/${body.id}`, headers });
    assert.deepEqual(get.json(), body);
  });

  test('content and text without [CONTENT] → 422 naming each field', async () => {
    const res = await create({ title: title(), content: '<html><body>nothing</body></html>', text: 'plain' });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(
      res.json(),
      invalid({
        content: ['The content must include at least one "[CONTENT]" placeholder.'],
        text: ['The text must include at least one "[CONTENT]" placeholder.'],
      }),
    );
  });

  test('missing or blank title, wrong JSON types → 422; malformed JSON → 400', async () => {
    const missing = await create({ content: PAGE });
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(missing.json(), invalid({ title: ['This value should not be blank.'] }));
    const blank = await create({ title: '   ', content: PAGE });
    assert.deepEqual(blank.json(), invalid({ title: ['This value should not be blank.'] }));
    const types = await create({ title: title(), content: 5, check_links: 'yes', list_order: 'first' });
    assert.equal(types.statusCode, 422);
    assert.deepEqual(
      types.json(),
      invalid({
        content: ['This value should be of type string.'],
        check_links: ['This value should be of type boolean.'],
        list_order: ['This value should be of type integer.'],
      }),
    );
    const bad = await t.inject({
      method: 'POST',
      url: '/api/v2/templates',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"title":',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /^Invalid JSON: /);
  });

  test('a title taken (case-insensitively) → 409', async () => {
    await create({ title: 'Taken Title', content: PAGE });
    const res = await create({ title: ' taken title ', content: PAGE });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), TAKEN);
  });

  test('check_links: every link a full URL, mailto: or a URL placeholder', async () => {
    const ok = await create({
      title: title(),
      content: '[CONTENT]<a href="https://example.com/a">a</a><a href="mailto:x@example.com">m</a><a href="[UNSUBSCRIBEURL]">u</a>',
      check_links: true,
    });
    assert.equal(ok.statusCode, 201);
    const res = await create({
      title: title(),
      content: '[CONTENT]<a href="a.html">a</a><a href="https://ok.example.com">b</a><a href="javascript:alert(1)">c</a><a href="//cdn">d</a>',
      check_links: true,
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), invalid({ content: ['Not full URLs: a.html, javascript:alert(1), //cdn'] }));
  });

  test('check_images: every image a full http(s) URL', async () => {
    const res = await create({
      title: title(),
      content: '[CONTENT]<img src="https://example.com/a.png"><img src="b.png"><img src="ftp://example.com/c.png">',
      check_images: true,
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), invalid({ content: ['Image "b.png" is not a full URL.', 'Image "ftp://example.com/c.png" is not a full URL.'] }));
  });

  test('check_external_images: HEAD must answer 200 (redirects to http followed)', async () => {
    const ok = await create({
      title: title(),
      content: `[CONTENT]<img src="${imageBase}/ok.png"><img src="${imageBase}/hop"><img src="data:image/gif;base64,R0lGOD">`,
      check_external_images: true,
    });
    assert.equal(ok.statusCode, 201);
    const res = await create({
      title: title(),
      content: `[CONTENT]<img src="${imageBase}/ok.png"><img src="${imageBase}/missing.png"><img src="${imageBase}/to-file"><img src="${imageBase}/loop">`,
      check_external_images: true,
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(
      res.json(),
      invalid({
        // One message whatever went wrong: the answer must not tell a 404 from a closed port.
        content: [UNREACHABLE(`${imageBase}/missing.png`), UNREACHABLE(`${imageBase}/to-file`), UNREACHABLE(`${imageBase}/loop`)],
      }),
    );
  });

  test('check_external_images: a server that does not answer times out (IMAGE_CHECK_TIMEOUT_MS)', async () => {
    const started = Date.now();
    const res = await create({ title: title(), content: `[CONTENT]<img src="${imageBase}/slow.png">`, check_external_images: true });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), invalid({ content: [UNREACHABLE(`${imageBase}/slow.png`)] }));
    assert.ok(Date.now() - started < 3000);
    // Nothing listens on a port just closed: a connection error, not a 500.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const src = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/x.png`;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await create({ title: title(), content: `[CONTENT]<img src="${src}">`, check_external_images: true });
    assert.deepEqual(refused.json(), invalid({ content: [UNREACHABLE(src)] }));
  });

  test('check_external_images: loopback, private, link-local and 0.0.0.0 are never requested, also after a redirect', async () => {
    const strict = await startTestApp({ imageCheckTimeoutMs: 300 });
    try {
      const { headers: h } = await strict.adminWithSession();
      requested.length = 0;
      const direct = [`${imageBase}/ok.png`, `http://localhost:${port()}/ok.png`, `http://[::ffff:127.0.0.1]:${port()}/ok.png`];
      const res = await strict.inject({
        method: 'POST',
        url: '/api/v2/templates',
        headers: h,
        payload: { title: title(), content: `[CONTENT]${direct.map((src) => `<img src="${src}">`).join('')}`, check_external_images: true },
      });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), invalid({ content: direct.map(UNREACHABLE) }));
      assert.deepEqual(requested, []);
    } finally {
      await strict.close();
    }
    // With loopback allowed for the test server, every other non-public address is still refused, at each hop.
    requested.length = 0;
    const hops = [
      `${imageBase}/to-any`,
      `${imageBase}/to-metadata`,
      `http://0.0.0.0:${port()}/ok.png`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/x.png',
      'http://[fd00::1]/x.png',
    ];
    const started = Date.now();
    const res = await create({
      title: title(),
      content: `[CONTENT]${hops.map((src) => `<img src="${src}">`).join('')}`,
      check_external_images: true,
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), invalid({ content: hops.map(UNREACHABLE) }));
    // The redirects were asked for; what they point to never was (0.0.0.0 would have reached this server).
    assert.deepEqual(requested.sort(), ['/to-any', '/to-metadata']);
    assert.ok(Date.now() - started < 3000);
  });

  test('check_external_images: more than 50 distinct remote images are refused, not checked', async () => {
    const many = Array.from({ length: 51 }, (_, i) => `<img src="${imageBase}/ok.png?${i}">`).join('');
    const res = await create({ title: title(), content: `[CONTENT]${many}`, check_external_images: true });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), invalid({ content: ['Too many images to check: 51 (at most 50).'] }));
  });

  test('no key → 403; without the campaigns privilege → 403', async () => {
    const none = await t.inject({ method: 'POST', url: '/api/v2/templates', payload: { title: 'x', content: PAGE } });
    assert.equal(none.statusCode, 403);
    assert.deepEqual(none.json(), NO_SESSION);
    const { headers: other } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true, settings: true } });
    const denied = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: other, payload: { title: 'x', content: PAGE } });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), DENIED);
    const { headers: allowed } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const ok = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: allowed, payload: { title: title(), content: PAGE } });
    assert.equal(ok.statusCode, 201);
  });
});

describe('POST /api/v2/templates (multipart)', () => {
  test('form fields as the JSON body would carry them; the file becomes the content (phpList core), shown by GET', async () => {
    const html = '<html>[CONTENT] uploaded <img src="https://cdn.example.com/logo.png"> é</html>';
    const file = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html)]);
    const form = multipart({ title: 'Uploaded', content: PAGE, text: '[CONTENT]', list_order: '3', check_links: 'true', check_images: '1' }, [
      { name: 'file', filename: 'template.html', contentType: 'text/html', data: file },
    ]);
    const res = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: { ...headers, ...form.headers }, payload: form.payload });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    const image = {
      id: body.images?.[0]?.id,
      template_id: body.id,
      mimetype: 'image/png',
      filename: 'https://cdn.example.com/logo.png',
      data: '',
      width: null,
      height: null,
    };
    assert.deepEqual(body, { id: body.id, title: 'Uploaded', content: html, text: '[CONTENT]', list_order: 3, images: [image] });
    const read = await t.inject({ method: 'GET', url: `/api/v2/templates/${body.id}`, headers });
    assert.deepEqual(read.json(), body);
    const [row] = await t.db.select({ file: templates.file }).from(templates).where(eq(templates.id, body.id));
    assert.deepEqual(row!.file, file);
  });

  test('the file is validated as content would be, at `file`; not UTF-8, NUL, too long → 422; an empty file part is none', async () => {
    const send = (fields: Record<string, string>, data: Buffer | string) => {
      const form = multipart(fields, [{ name: 'file', filename: 't.html', contentType: 'text/html', data }]);
      return t.inject({ method: 'POST', url: '/api/v2/templates', headers: { ...headers, ...form.headers }, payload: form.payload });
    };
    const name = title();
    const noPlaceholder = await send({ title: name, content: PAGE }, '<html>no placeholder</html>');
    assert.equal(noPlaceholder.statusCode, 422);
    assert.deepEqual(noPlaceholder.json(), invalid({ file: ['The file must include at least one "[CONTENT]" placeholder.'] }));
    const links = await send({ title: name, check_links: 'yes', check_images: 'on' }, '[CONTENT]<a href="page.html">x</a><img src="pic.png">');
    assert.deepEqual(links.json(), invalid({ file: ['Not full URLs: page.html', 'Image "pic.png" is not a full URL.'] }));
    const latin1 = await send({ title: name }, Buffer.from('[CONTENT] caf\xe9', 'latin1'));
    assert.deepEqual(latin1.json(), invalid({ file: ['The file is not UTF-8 text.'] }));
    const nul = await send({ title: name }, '[CONTENT]\u0000');
    assert.deepEqual(nul.json(), invalid({ file: ['The file contains a NUL character; it must be HTML text.'] }));
    const long = await send({ title: name }, `[CONTENT]${'x'.repeat(1_000_000)}`);
    assert.deepEqual(long.json(), invalid({ file: ['The file is too long: 1000009 characters (at most 1000000).'] }));
    const list = await t.inject({ method: 'GET', url: '/api/v2/templates?limit=1000', headers });
    assert.ok(!list.json().items.some((i: { title: string }) => i.title === name), 'nothing stored');

    const empty = await send({ title: name, content: PAGE }, '');
    assert.equal(empty.statusCode, 201, empty.body);
    assert.equal(empty.json().content, PAGE);
    const [row] = await t.db.select({ file: templates.file }).from(templates).where(eq(templates.id, empty.json().id));
    assert.equal(row!.file, null);
  });

  test('without a file there is no file content; form values of the wrong type → 422', async () => {
    const form = multipart({ title: 'No file', content: PAGE });
    const res = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: { ...headers, ...form.headers }, payload: form.payload });
    assert.equal(res.statusCode, 201);
    const [row] = await t.db.select({ file: templates.file }).from(templates).where(eq(templates.id, res.json().id));
    assert.equal(row!.file, null);
    const bad = multipart({ title: title(), content: 'no placeholder', check_images: 'maybe', list_order: '1x' });
    const res2 = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: { ...headers, ...bad.headers }, payload: bad.payload });
    assert.equal(res2.statusCode, 422);
    assert.deepEqual(
      res2.json(),
      invalid({
        check_images: ['This value should be of type boolean.'],
        list_order: ['This value should be of type integer.'],
      }),
    );
    const noTitle = multipart({ content: PAGE });
    const res3 = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: { ...headers, ...noTitle.headers }, payload: noTitle.payload });
    assert.deepEqual(res3.json(), invalid({ title: ['This value should not be blank.'] }));
  });

  test('broken multipart → 400; a file over the limit → 413', async () => {
    const form = multipart({ title: title(), content: PAGE }, [{ name: 'file', filename: 'a.html', data: 'x'.repeat(100) }]);
    const cut = form.payload.subarray(0, form.payload.length - 60);
    const res = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: { ...headers, ...form.headers }, payload: cut });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /^Malformed multipart body: /);
    const noBoundary = await t.inject({
      method: 'POST',
      url: '/api/v2/templates',
      headers: { ...headers, 'content-type': 'multipart/form-data' },
      payload: 'garbage',
    });
    assert.equal(noBoundary.statusCode, 400);
    const big = multipart({ title: title(), content: PAGE }, [
      { name: 'file', filename: 'big.html', data: Buffer.alloc(t.config.bodyLimit + 1, 97) },
    ]);
    const tooBig = await t.inject({ method: 'POST', url: '/api/v2/templates', headers: { ...headers, ...big.headers }, payload: big.payload });
    assert.equal(tooBig.statusCode, 413);
    assert.deepEqual(tooBig.json(), { message: `The file is larger than the limit of ${t.config.bodyLimit} bytes.` });
    const longField = multipart({ title: title(), content: `[CONTENT]${'x'.repeat(t.config.bodyLimit)}` });
    const fieldTooBig = await t.inject({
      method: 'POST',
      url: '/api/v2/templates',
      headers: { ...headers, ...longField.headers },
      payload: longField.payload,
    });
    assert.deepEqual(
      [fieldTooBig.statusCode, fieldTooBig.json()],
      [413, { message: `The field "content" is larger than ${t.config.bodyLimit} bytes.` }],
    );
  });
});

describe('GET /api/v2/templates', () => {
  test('cursor pages of whole templates', async () => {
    const { headers: h } = await t.adminWithSession();
    const all = await t.inject({ method: 'GET', url: '/api/v2/templates?limit=100', headers: h });
    assert.equal(all.statusCode, 200);
    const items = all.json().items as { id: number }[];
    assert.ok(items.length >= 3);
    assert.deepEqual(all.json().pagination, { total: items.length, limit: 100, has_more: false, next_cursor: items.at(-1)!.id });
    const first = await t.inject({ method: 'GET', url: '/api/v2/templates?limit=1', headers: h });
    assert.deepEqual(first.json(), { items: [items[0]], pagination: { total: items.length, limit: 1, has_more: true, next_cursor: items[0]!.id } });
    const second = await t.inject({ method: 'GET', url: `/api/v2/templates?limit=1&after_id=${items[0]!.id}`, headers: h });
    assert.deepEqual(second.json().items, [items[1]]);
    for (const item of items) {
      const one = await t.inject({ method: 'GET', url: `/api/v2/templates/${item.id}`, headers: h });
      assert.deepEqual(one.json(), item);
    }
  });

  test('403 without key or privilege; 404 unknown and non-digit ids', async () => {
    assert.deepEqual((await t.inject({ method: 'GET', url: '/api/v2/templates' })).json(), NO_SESSION);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/templates/1' })).statusCode, 403);
    const { headers: other } = await t.adminWithSession({ superUser: false });
    const denied = await t.inject({ method: 'GET', url: '/api/v2/templates', headers: other });
    assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED]);
    const missing = await t.inject({ method: 'GET', url: '/api/v2/templates/999999', headers });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    const word = await t.inject({ method: 'GET', url: '/api/v2/templates/abc', headers });
    assert.equal(word.statusCode, 404);
    assert.match(word.json().message, /^No route found for "GET /);
  });
});

describe('built-in templates', () => {
  test('GET /templates/defaults lists system and responsive', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/templates/defaults', headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), [
      {
        key: 'system',
        name: 'System template',
        description: 'A plain single-column layout with a footer, for system messages and simple campaigns.',
        file: 'system.html',
      },
      {
        key: 'responsive',
        name: 'Responsive template',
        description: 'A centred 600-pixel table layout that narrows to the screen on phones; works in Outlook too.',
        file: 'responsive.html',
      },
    ]);
  });

  test('POST /templates/defaults/{key} creates from the file; twice → 409; unknown → 404', async () => {
    for (const [key, name] of [
      ['system', 'System template'],
      ['responsive', 'Responsive template'],
    ] as const) {
      const html = readFileSync(new URL(`../../src/messaging/default-templates/${key}.html`, import.meta.url), 'utf8');
      assert.ok(html.includes('[CONTENT]'));
      const res = await t.inject({ method: 'POST', url: `/api/v2/templates/defaults/${key}`, headers });
      assert.equal(res.statusCode, 201);
      const body = res.json();
      assert.deepEqual(body, {
        id: body.id,
        title: name,
        content: html,
        text: '[CONTENT]\n\n--\n[FOOTER]\nUnsubscribe: [UNSUBSCRIBEURL]\nYour preferences: [PREFERENCESURL]\n[SIGNATURE]\n',
        list_order: 0,
        images: null,
      });
      const again = await t.inject({ method: 'POST', url: `/api/v2/templates/defaults/${key}`, headers });
      assert.deepEqual([again.statusCode, again.json()], [409, TAKEN]);
    }
    const unknown = await t.inject({ method: 'POST', url: '/api/v2/templates/defaults/fancy', headers });
    assert.deepEqual([unknown.statusCode, unknown.json()], [404, { message: 'Default template not found.' }]);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/templates/defaults' })).statusCode, 403);
    assert.equal((await t.inject({ method: 'POST', url: '/api/v2/templates/defaults/system' })).statusCode, 403);
  });
});

describe('PUT /api/v2/templates/{id}', () => {
  test('201; title replaced, content/text/list order unchanged when absent, images re-extracted', async () => {
    const created = (
      await create({ title: 'Before', content: '[CONTENT]<img src="https://x.example/a.gif">', text: 'T [CONTENT]', list_order: 4 })
    ).json();
    const oldImage = created.images[0].id;
    const res = await t.inject({ method: 'PUT', url: `/api/v2/templates/${created.id}`, headers, payload: { title: 'Updated Template' } });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, {
      id: created.id,
      title: 'Updated Template',
      content: created.content,
      text: 'T [CONTENT]',
      list_order: 4,
      images: [
        {
          id: body.images[0].id,
          template_id: created.id,
          mimetype: 'image/gif',
          filename: 'https://x.example/a.gif',
          data: '',
          width: null,
          height: null,
        },
      ],
    });
    assert.notEqual(res.json().images[0].id, oldImage);
    const cleared = await t.inject({
      method: 'PUT',
      url: `/api/v2/templates/${created.id}`,
      headers,
      payload: { title: 'Updated Template', content: '<b>[CONTENT]</b>', text: null, list_order: 1 },
    });
    assert.deepEqual(cleared.json(), {
      id: created.id,
      title: 'Updated Template',
      content: '<b>[CONTENT]</b>',
      text: 'T [CONTENT]',
      list_order: 1,
      images: null,
    });
    const rows = await t.db.select().from(templateImages).where(eq(templateImages.templateId, created.id));
    assert.deepEqual(rows, []);
  });

  test('multipart update: a file replaces content and file; without one both stay', async () => {
    const created = (await create({ title: title(), content: PAGE })).json();
    const first = multipart({ title: 'With file' }, [{ name: 'file', filename: 'f.html', data: '<p>one [CONTENT]</p>' }]);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/templates/${created.id}`,
      headers: { ...headers, ...first.headers },
      payload: first.payload,
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), { id: created.id, title: 'With file', content: '<p>one [CONTENT]</p>', text: null, list_order: 0, images: null });
    const second = multipart({ title: 'With file', list_order: '' });
    const kept = await t.inject({
      method: 'PUT',
      url: `/api/v2/templates/${created.id}`,
      headers: { ...headers, ...second.headers },
      payload: second.payload,
    });
    assert.equal(kept.json().content, '<p>one [CONTENT]</p>');
    const [row] = await t.db.select({ file: templates.file }).from(templates).where(eq(templates.id, created.id));
    assert.equal(row!.file!.toString(), '<p>one [CONTENT]</p>');
  });

  test('404 before the body is checked; 409 for another template title; own title fine; 422; 403', async () => {
    const missing = await t.inject({ method: 'PUT', url: '/api/v2/templates/999999', headers, payload: {} });
    assert.deepEqual([missing.statusCode, missing.json()], [404, NOT_FOUND]);
    assert.equal((await t.inject({ method: 'PUT', url: '/api/v2/templates/x1', headers, payload: {} })).statusCode, 404);
    const a = (await create({ title: 'Alpha', content: PAGE })).json();
    await create({ title: 'Beta', content: PAGE });
    const clash = await t.inject({ method: 'PUT', url: `/api/v2/templates/${a.id}`, headers, payload: { title: 'BETA' } });
    assert.deepEqual([clash.statusCode, clash.json()], [409, TAKEN]);
    const own = await t.inject({ method: 'PUT', url: `/api/v2/templates/${a.id}`, headers, payload: { title: 'alpha' } });
    assert.equal(own.statusCode, 201);
    const bad = await t.inject({ method: 'PUT', url: `/api/v2/templates/${a.id}`, headers, payload: { title: 'alpha', content: 'none' } });
    assert.deepEqual(bad.json(), invalid({ content: ['The content must include at least one "[CONTENT]" placeholder.'] }));
    const checked = await t.inject({
      method: 'PUT',
      url: `/api/v2/templates/${a.id}`,
      headers,
      payload: { title: 'alpha', content: '[CONTENT]<a href="rel">r</a>', check_links: true },
    });
    assert.deepEqual(checked.json(), invalid({ content: ['Not full URLs: rel'] }));
    const none = await t.inject({ method: 'PUT', url: `/api/v2/templates/${a.id}`, payload: { title: 'x' } });
    assert.deepEqual([none.statusCode, none.json()], [403, NO_SESSION]);
  });
});

describe('DELETE /api/v2/templates/{id}', () => {
  test('204, images gone, then 404; 403 without key', async () => {
    const created = (await create({ title: title(), content: '[CONTENT]<img src="https://x.example/a.gif">' })).json();
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/templates/${created.id}` })).statusCode, 403);
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/templates/${created.id}`, headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.deepEqual(await t.db.select().from(templateImages).where(eq(templateImages.templateId, created.id)), []);
    const again = await t.inject({ method: 'DELETE', url: `/api/v2/templates/${created.id}`, headers });
    assert.deepEqual([again.statusCode, again.json()], [404, NOT_FOUND]);
    assert.equal((await t.inject({ method: 'DELETE', url: '/api/v2/templates/-1', headers })).statusCode, 404);
  });
});

describe('POST /api/v2/templates/check (ours)', () => {
  const check = (payload: unknown, h: Record<string, string> = headers) =>
    t.inject({ method: 'POST', url: '/api/v2/templates/check', headers: h, payload: payload as Record<string, unknown> });

  test("the save's rules and checks on unsaved HTML: 200 when all pass, the save's 422 when not, nothing stored", async () => {
    const before = await t.db.select({ id: templates.id }).from(templates);
    const ok = await check({
      content: '[CONTENT]<a href="https://example.com/">a</a><img src="https://example.com/a.png">',
      check_links: true,
      check_images: true,
    });
    assert.deepEqual([ok.statusCode, ok.json()], [200, { ok: true }]);
    const bad = await check({
      content: '<a href="a.html">a</a><img src="b.png">',
      text: 'no placeholder',
      check_links: true,
      check_images: true,
    });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(
      bad.json(),
      invalid({
        content: ['The content must include at least one "[CONTENT]" placeholder.', 'Not full URLs: a.html', 'Image "b.png" is not a full URL.'],
        text: ['The text must include at least one "[CONTENT]" placeholder.'],
      }),
    );
    // Checks not asked for are not run; the remote image check asks the image's server.
    assert.deepEqual((await check({ content: '[CONTENT]<a href="a.html">a</a>' })).json(), { ok: true });
    const remote = await check({ content: `[CONTENT]<img src="${imageBase}/missing.png">`, check_external_images: true });
    assert.equal(remote.statusCode, 422);
    assert.deepEqual(remote.json(), invalid({ content: [UNREACHABLE(`${imageBase}/missing.png`)] }));
    assert.deepEqual(await t.db.select({ id: templates.id }).from(templates), before);
  });

  test('a wrong type → 422; no session → 403; without the campaigns privilege → 403', async () => {
    const wrong = await check({ content: 5, check_links: 'yes' });
    assert.equal(wrong.statusCode, 422);
    assert.deepEqual(Object.keys((wrong.json() as { errors: Record<string, string[]> }).errors).sort(), ['check_links', 'content']);
    const anonymous = await t.inject({ method: 'POST', url: '/api/v2/templates/check', payload: { content: '[CONTENT]' } });
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, NO_SESSION]);
    const { headers: statsOnly } = await t.adminWithSession({ superUser: false, privileges: { statistics: true } });
    const denied = await check({ content: '[CONTENT]' }, statsOnly);
    assert.deepEqual([denied.statusCode, denied.json()], [403, DENIED]);
  });
});
