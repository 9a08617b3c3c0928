import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { attachmentStorage, diskStorage } from '../../src/messaging/attachment-storage.js';
import { forgetCampaignAttachments } from '../../src/messaging/attachment.service.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';
import { multipart, type FilePart } from './multipart.js';

const LIMIT = 100_000;
let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp({ attachmentMaxSize: LIMIT });
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const CAMPAIGN_NOT_FOUND = { message: 'Campaign not found.' };
const ATTACHMENT_NOT_FOUND = { message: 'Attachment not found.' };
const invalid = (field: string, message: string) => ({ message: 'Validation failed', errors: { [field]: [message] } });

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const root = () => join(t.config.dataDir, 'attachments');
const fileOf = (hash: string) => join(root(), hash.slice(0, 2), hash.slice(2, 4), hash);
const tmpFiles = () => (existsSync(join(root(), 'tmp')) ? readdirSync(join(root(), 'tmp')) : []);

function upload(campaignId: number | string, fields: Record<string, string>, files: FilePart[], h = headers) {
  const form = multipart(fields, files);
  return t.inject({
    method: 'POST',
    url: `/api/v2/campaigns/${campaignId}/attachments`,
    headers: { ...h, ...form.headers },
    payload: form.payload,
  });
}
const textFile = (data: string, filename = 'attachment.txt'): FilePart => ({ name: 'file', filename, contentType: 'text/plain', data });

describe('POST /api/v2/campaigns/{messageId}/attachments', () => {
  test('stores the file by SHA-256 under DATA_DIR/attachments and answers 201', async () => {
    const campaign = await createCampaign(t.db);
    // The description may come after the file.
    const form = multipart({}, [{ name: 'file', filename: 'Prices 2026.pdf', contentType: 'Application/PDF; name=x', data: '%PDF-1.4 body' }]);
    const withDescription = Buffer.concat([
      form.payload.subarray(0, form.payload.length - Buffer.byteLength(`--${form.headers['content-type'].split('boundary=')[1]}--\r\n`)),
      Buffer.from(
        `--${form.headers['content-type'].split('boundary=')[1]}\r\nContent-Disposition: form-data; name="description"\r\n\r\nPrice list\r\n--${form.headers['content-type'].split('boundary=')[1]}--\r\n`,
      ),
    ]);
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/campaigns/${campaign.id}/attachments`,
      headers: { ...headers, ...form.headers },
      payload: withDescription,
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      filename: 'Prices 2026.pdf',
      mime_type: 'application/pdf',
      size: 13,
      description: 'Price list',
      created_at: atom(body.created_at),
    });
    assert.equal(readFileSync(fileOf(sha('%PDF-1.4 body')), 'utf8'), '%PDF-1.4 body');
    assert.deepEqual(tmpFiles(), []);
  });

  test('no description is null; an unusable MIME type is application/octet-stream; unknown parts ignored', async () => {
    const campaign = await createCampaign(t.db);
    const res = await upload(campaign.id, { other: 'x' }, [
      { name: 'file', filename: 'data.bin', contentType: 'not a type', data: 'abc' },
      { name: 'extra', filename: 'ignored.txt', data: 'zzz' },
    ]);
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(body, {
      id: body.id,
      filename: 'data.bin',
      mime_type: 'application/octet-stream',
      size: 3,
      description: null,
      created_at: body.created_at,
    });
  });

  test('file names with path separators or control characters → 422, nothing stored', async () => {
    const campaign = await createCampaign(t.db);
    const before = readdirSync(root()).length;
    for (const [filename, message] of [
      ['../../etc/passwd', 'The file name must not contain path separators.'],
      ['dir\\evil.txt', 'The file name must not contain path separators.'],
      ['bad\tname.txt', 'The file name must not contain control characters.'],
      ['..', 'The file name is not valid.'],
      ['   ', 'The file name should not be blank.'],
    ] as const) {
      const res = await upload(campaign.id, {}, [textFile('evil', filename)]);
      assert.equal(res.statusCode, 422, filename);
      assert.deepEqual(res.json(), invalid('file', message));
    }
    // The RFC 5987 form (filename*) is decoded first, then refused the same.
    const boundary = 'xyz';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''a%1Bb.txt\r\n\r\nevil\r\n--${boundary}--\r\n`;
    const encoded = await t.inject({
      method: 'POST',
      url: `/api/v2/campaigns/${campaign.id}/attachments`,
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    assert.deepEqual([encoded.statusCode, encoded.json()], [422, invalid('file', 'The file name must not contain control characters.')]);
    assert.equal(readdirSync(root()).length, before);
    assert.equal(existsSync(fileOf(sha('evil'))), false);
  });

  test('missing file, empty file, long description → 422; not multipart → 415; broken multipart → 400', async () => {
    const campaign = await createCampaign(t.db);
    const none = await upload(campaign.id, { description: 'x' }, []);
    assert.deepEqual([none.statusCode, none.json()], [422, invalid('file', 'This value should not be blank.')]);
    const empty = await upload(campaign.id, {}, [textFile('')]);
    assert.deepEqual([empty.statusCode, empty.json()], [422, invalid('file', 'The file is empty.')]);
    const long = await upload(campaign.id, { description: 'd'.repeat(1001) }, [textFile('long description')]);
    assert.deepEqual(
      [long.statusCode, long.json()],
      [422, invalid('description', 'This value is too long. It should have 1000 characters or less.')],
    );
    assert.equal(existsSync(fileOf(sha('long description'))), false);
    const json = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/attachments`, headers, payload: { file: 'x' } });
    assert.deepEqual([json.statusCode, json.json()], [415, { message: 'Send the file as multipart/form-data, in a field named "file".' }]);
    const form = multipart({}, [textFile('cut short '.repeat(50))]);
    const broken = await t.inject({
      method: 'POST',
      url: `/api/v2/campaigns/${campaign.id}/attachments`,
      headers: { ...headers, ...form.headers },
      payload: form.payload.subarray(0, form.payload.length - 100),
    });
    assert.equal(broken.statusCode, 400);
    assert.match(broken.json().message, /^Malformed multipart body: /);
    assert.equal(existsSync(fileOf(sha('cut short '.repeat(50)))), false);
    assert.deepEqual(tmpFiles(), []);
    const list = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/attachments`, headers });
    assert.deepEqual(list.json(), []);
  });

  test('over ATTACHMENT_MAX_SIZE → 413, while streaming or from Content-Length; nothing kept', async () => {
    const campaign = await createCampaign(t.db);
    const message = { message: `The file is larger than the limit of ${LIMIT} bytes.` };
    const justOver = Buffer.alloc(LIMIT + 1, 120);
    const streamed = await upload(campaign.id, {}, [{ name: 'file', filename: 'big.bin', data: justOver }]);
    assert.deepEqual([streamed.statusCode, streamed.json()], [413, message]);
    assert.equal(existsSync(fileOf(sha(justOver))), false);
    assert.deepEqual(tmpFiles(), []);
    const huge = await upload(campaign.id, {}, [{ name: 'file', filename: 'huge.bin', data: Buffer.alloc(LIMIT * 2, 1) }]);
    assert.deepEqual([huge.statusCode, huge.json()], [413, message]);
    const exact = await upload(campaign.id, {}, [{ name: 'file', filename: 'exact.bin', data: Buffer.alloc(LIMIT, 120) }]);
    assert.equal(exact.statusCode, 201);
    assert.equal(exact.json().size, LIMIT);
  });

  test('403 without key or privilege; 404 for a missing campaign (before the body), non-digit id', async () => {
    const campaign = await createCampaign(t.db);
    const none = await upload(campaign.id, {}, [textFile('a')], {});
    assert.deepEqual([none.statusCode, none.json()], [403, NO_SESSION]);
    const { headers: other } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const denied = await upload(campaign.id, {}, [textFile('a')], other);
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to manage attachments.' }]);
    const missing = await t.inject({ method: 'POST', url: '/api/v2/campaigns/999999/attachments', headers, payload: {} });
    assert.deepEqual([missing.statusCode, missing.json()], [404, CAMPAIGN_NOT_FOUND]);
    const word = await upload('abc', {}, [textFile('a')]);
    assert.equal(word.statusCode, 404);
    assert.match(word.json().message, /^No route found for "POST /);
  });
});

describe('GET and DELETE /api/v2/campaigns/{messageId}/attachments', () => {
  test('lists in upload order; the same bytes are stored once and removed with their last row', async () => {
    const campaign = await createCampaign(t.db);
    const other = await createCampaign(t.db);
    const a = (await upload(campaign.id, { description: 'A' }, [textFile('shared bytes', 'a.txt')])).json();
    const b = (await upload(campaign.id, {}, [textFile('other bytes', 'b.txt')])).json();
    const c = (await upload(other.id, {}, [textFile('shared bytes', 'c.txt')])).json();
    const list = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/attachments`, headers });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json(), [
      { id: a.id, filename: 'a.txt', mime_type: 'text/plain', size: 12, description: 'A', created_at: a.created_at },
      { id: b.id, filename: 'b.txt', mime_type: 'text/plain', size: 11, description: null, created_at: b.created_at },
    ]);
    // Not this campaign's attachment → 404.
    const foreign = await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${campaign.id}/attachments/${c.id}`, headers });
    assert.deepEqual([foreign.statusCode, foreign.json()], [404, ATTACHMENT_NOT_FOUND]);
    const del = await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${campaign.id}/attachments/${a.id}`, headers });
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    assert.ok(existsSync(fileOf(sha('shared bytes'))), 'still used by the other campaign');
    await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${other.id}/attachments/${c.id}`, headers });
    assert.equal(existsSync(fileOf(sha('shared bytes'))), false);
    const again = await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${campaign.id}/attachments/${a.id}`, headers });
    assert.deepEqual([again.statusCode, again.json()], [404, ATTACHMENT_NOT_FOUND]);
    const after = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/attachments`, headers });
    assert.deepEqual(
      after.json().map((x: { id: number }) => x.id),
      [b.id],
    );
  });

  test('forgetCampaignAttachments (for the campaign delete) drops rows and files nothing else uses', async () => {
    const campaign = await createCampaign(t.db);
    const other = await createCampaign(t.db);
    await upload(campaign.id, {}, [textFile('only here', 'a.txt'), textFile('ignored second file', 'b.txt')]);
    await upload(campaign.id, {}, [textFile('kept elsewhere', 'b.txt')]);
    await upload(other.id, {}, [textFile('kept elsewhere', 'c.txt')]);
    await forgetCampaignAttachments(t.ctx, attachmentStorage(t.ctx), campaign.id);
    assert.deepEqual((await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/attachments`, headers })).json(), []);
    assert.equal(existsSync(fileOf(sha('only here'))), false);
    assert.ok(existsSync(fileOf(sha('kept elsewhere'))));
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/campaigns/${other.id}/attachments`, headers })).json().length, 1);
  });

  test('403 without key; 404 for a missing campaign and non-digit ids', async () => {
    const campaign = await createCampaign(t.db);
    assert.deepEqual((await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/attachments` })).json(), NO_SESSION);
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${campaign.id}/attachments/1` })).statusCode, 403);
    const list = await t.inject({ method: 'GET', url: '/api/v2/campaigns/999999/attachments', headers });
    assert.deepEqual([list.statusCode, list.json()], [404, CAMPAIGN_NOT_FOUND]);
    const del = await t.inject({ method: 'DELETE', url: '/api/v2/campaigns/999999/attachments/1', headers });
    assert.deepEqual([del.statusCode, del.json()], [404, CAMPAIGN_NOT_FOUND]);
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${campaign.id}/attachments/x`, headers })).statusCode, 404);
  });
});

describe('GET /attachments/download/{id}', () => {
  async function scene(filename = 'attachment.txt', data = 'hello, subscriber') {
    const campaign = await createCampaign(t.db);
    const attachment = (await upload(campaign.id, {}, [textFile(data, filename)])).json();
    const subscriber = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, subscriber.id);
    return { campaign, attachment, subscriber };
  }

  test('streams the file with type, disposition and length, with and without the /api/v2 prefix', async () => {
    const { attachment, subscriber } = await scene();
    for (const prefix of ['/api/v2', '']) {
      const res = await t.inject({ method: 'GET', url: `${prefix}/attachments/download/${attachment.id}?uid=${subscriber.uniqueId}` });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/plain; charset=UTF-8');
      assert.equal(res.headers['content-disposition'], `attachment; filename="attachment.txt"; filename*=UTF-8''attachment.txt`);
      assert.equal(res.headers['content-length'], '17');
      assert.equal(res.body, 'hello, subscriber');
    }
    const head = await t.inject({ method: 'HEAD', url: `/attachments/download/${attachment.id}?uid=${subscriber.uniqueId}` });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], '17');
    assert.equal(head.body, '');
  });

  test('RFC 6266 names: an ASCII fallback and the exact UTF-8 name', async () => {
    const { attachment, subscriber } = await scene('Prüfung "Q1" 100%.txt');
    const res = await t.inject({ method: 'GET', url: `/attachments/download/${attachment.id}?uid=${subscriber.uniqueId}` });
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename="Pr_fung _Q1_ 100_.txt"; filename*=UTF-8''Pr%C3%BCfung%20%22Q1%22%20100%25.txt`,
    );
  });

  test('a large file arrives whole; storage reads it in 8192-byte chunks', async () => {
    const data = Buffer.alloc(50_000);
    for (let i = 0; i < data.length; i++) data[i] = i % 251;
    const campaign = await createCampaign(t.db);
    const attachment = (await upload(campaign.id, {}, [{ name: 'file', filename: 'big.bin', data }])).json();
    const subscriber = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, subscriber.id);
    const res = await t.inject({ method: 'GET', url: `/api/v2/attachments/download/${attachment.id}?uid=${subscriber.uniqueId}` });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/octet-stream');
    assert.deepEqual(res.rawPayload, data);
    const stream = await diskStorage(root()).open(sha(data), { chunkSize: 8192 });
    const sizes: number[] = [];
    for await (const chunk of stream!) sizes.push((chunk as Buffer).length);
    assert.deepEqual(sizes, [8192, 8192, 8192, 8192, 8192, 8192, 848]);
  });

  test('404 for an unknown attachment, a missing or unknown uid, a missing file; 403 when not sent', async () => {
    const { campaign, attachment, subscriber } = await scene('gone.txt', 'soon gone');
    const get = (url: string) => t.inject({ method: 'GET', url });
    const unknown = await get(`/api/v2/attachments/download/999999?uid=${subscriber.uniqueId}`);
    assert.deepEqual([unknown.statusCode, unknown.json()], [404, ATTACHMENT_NOT_FOUND]);
    const noUid = await get(`/api/v2/attachments/download/${attachment.id}`);
    assert.deepEqual([noUid.statusCode, noUid.json()], [404, { message: 'Subscriber not found.' }]);
    for (const uid of ['does-not-exist@example.com', 'forwarded', 'x'.repeat(500)]) {
      const res = await get(`/attachments/download/${attachment.id}?uid=${uid}`);
      assert.deepEqual([res.statusCode, res.json()], [404, { message: 'Subscriber not found.' }]);
    }
    const stranger = await createSubscriber(t.db);
    const denied = await get(`/api/v2/attachments/download/${attachment.id}?uid=${stranger.uniqueId}`);
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'Access denied.' }]);
    // Queued or failed is not sent.
    const queued = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, queued.id, { status: 'queued', sentAt: null });
    const notYet = await get(`/api/v2/attachments/download/${attachment.id}?uid=${queued.uniqueId}`);
    assert.deepEqual([notYet.statusCode, notYet.json()], [403, { message: 'Access denied.' }]);
    unlinkSync(fileOf(sha('soon gone')));
    const gone = await get(`/api/v2/attachments/download/${attachment.id}?uid=${subscriber.uniqueId}`);
    assert.deepEqual([gone.statusCode, gone.json()], [404, { message: 'Attachment file not available' }]);
    const word = await get(`/attachments/download/abc?uid=${subscriber.uniqueId}`);
    assert.equal(word.statusCode, 404);
  });
});
